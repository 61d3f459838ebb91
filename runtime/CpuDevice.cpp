#include "runtime/CpuDevice.h"

#include "runtime/EmulatorDevice.h"
#include "translator/Translator.h"

namespace runtime {

namespace {

void describeCode(const translator::CompileReport &report, EngineInfo &info) {
  info.compileSeconds = report.seconds;
  info.instructions = report.code.instructions;
  info.compiled = report.code.native;
  info.handlerCalls = report.code.handlerCalls;
  info.interpreted = report.code.interpreted;
  info.cache = translator::cacheResultName(report.cache);
  info.checked = !report.unchecked;
}

/// Goes with the device's engine factory: when the device goes away, so
/// does any compilation of its kernels.
struct DrainAtEnd {
  ~DrainAtEnd() { translator::drainBackgroundCompiler(); }
};

} // namespace

std::unique_ptr<Device> makeCpuDevice() {
  const translator::JitOptions options = translator::JitOptions::fromEnvironment();
  auto drain = std::make_shared<DrainAtEnd>();
  auto make = [options, drain](const emu::Kernel &k, ptx::DiagnosticList &diags,
                               EngineInfo &info) -> std::unique_ptr<emu::Engine> {
    if (!options.eager) {
      info.tier = "tiered";
      return translator::CompiledEngine::tiered(k, options);
    }
    translator::CompileReport report;
    std::unique_ptr<translator::CompiledEngine> engine =
        translator::CompiledEngine::compile(k, options, report);
    if (engine) return engine;
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::Unsupported;
    d.severity = ptx::Severity::Note;
    d.message = "kernel '" + k.name + "' runs on the interpreter: " + report.error;
    d.loc.file = k.module->fileName;
    d.loc.function = k.name;
    diags.add(std::move(d));
    info.tier = "eager";
    info.note = report.error;
    return nullptr;
  };
  auto describe = [](const emu::Engine &e, EngineInfo &info) {
    const translator::TierStatus s = static_cast<const translator::CompiledEngine &>(e).status();
    info.tier = s.eager ? "eager" : "tiered";
    info.warmupInstructions = s.interpreted;
    info.name = s.compiled ? "compiled" : "interpreter";
    if (s.compiled)
      describeCode(s.report, info);
    else if (!s.report.error.empty())
      info.note = "runs on the interpreter: " + s.report.error;
    else if (s.requested)
      info.note = "compiling";
    else
      info.note = "not hot enough to compile yet";
  };
  return std::make_unique<EmulatorDevice>("cpu", make, describe);
}

} // namespace runtime
