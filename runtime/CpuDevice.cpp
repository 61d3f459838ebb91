#include "runtime/CpuDevice.h"

#include "runtime/EmulatorDevice.h"
#include "translator/Translator.h"

namespace runtime {

std::unique_ptr<Device> makeCpuDevice() {
  return std::make_unique<EmulatorDevice>(
      "cpu",
      [](const emu::Kernel &k, ptx::DiagnosticList &diags, EngineInfo &info) -> std::unique_ptr<emu::Engine> {
        translator::CompileReport report;
        std::unique_ptr<translator::CompiledEngine> engine = translator::compileKernel(k, report);
        if (engine) {
          info.name = "compiled";
          info.compileSeconds = report.seconds;
          info.instructions = report.code.instructions;
          info.compiled = report.code.native;
          info.handlerCalls = report.code.handlerCalls;
          info.interpreted = report.code.interpreted;
        }
        if (!engine) {
          ptx::Diagnostic d;
          d.kind = ptx::DiagKind::Unsupported;
          d.severity = ptx::Severity::Note;
          d.message = "kernel '" + k.name + "' runs on the interpreter: " + report.error;
          d.loc.file = k.module->fileName;
          d.loc.function = k.name;
          diags.add(std::move(d));
        }
        return engine;
      });
}

} // namespace runtime
