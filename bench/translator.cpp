// bench_translator: compiles every kernel of the corpus (kernels/*.cu as
// nvcc emits them for sm_80, PTXVM_CORPUS_DIR) for --device cpu and prints
// what became of its instructions — compiled to vector code, calls of an
// interpreter handler (by opcode, most frequent first), left to the
// interpreter's loop — and the compile time per 1,000 PTX instructions,
// measured in this run, cold and from the on-disk cache.
//
//   bench_translator [DIR] [--kernel SUBSTRING] [--each]
//
// --kernel compiles only kernels whose name contains SUBSTRING; --each prints
// a line per kernel (PTX instructions, register slots, LLVM IR instructions,
// compile time), largest compile time last.
#include "translator/Translator.h"
#include "emulator/Device.h"
#include "ptx/Parser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

int main(int argc, char **argv) {
  std::string dir = PTXVM_CORPUS_DIR, only;
  bool each = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--each")
      each = true;
    else if (arg == "--kernel" && i + 1 < argc)
      only = argv[++i];
    else if (!arg.starts_with("--"))
      dir = arg;
    else {
      std::fprintf(stderr, "usage: bench_translator [DIR] [--kernel SUBSTRING] [--each]\n");
      return 2;
    }
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() > 10 && name.ends_with(".sm_80.ptx")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::printf("no corpus in %s (build ptx_corpus)\n", dir.c_str());
    return 1;
  }
  uint64_t kernels = 0, failed = 0, instructions = 0, native = 0, handlers = 0, interpreted = 0, hits = 0;
  uint64_t uniformAddresses = 0, consecutiveAddresses = 0, registers = 0, scalarRegisters = 0;
  double seconds = 0, hitSeconds = 0;
  const std::string cacheDir =
      (std::filesystem::temp_directory_path() / ("ptxvm-bench-cache-" + std::to_string(::getpid()))).string();
  std::map<std::string, uint64_t> handlerOpcodes;
  struct KernelLine {
    double seconds;
    std::string name;
    uint32_t instructions, slots;
    uint64_t ir;
  };
  std::vector<KernelLine> lines;
  uint64_t irInstructions = 0;
  for (const std::string &path : files) {
    std::string text;
    ptx::DiagnosticList diags;
    if (!ptx::readFile(path, text, diags)) continue;
    auto m = ptx::parseModule(std::move(text), path, diags);
    if (!m || diags.hasErrors()) continue;
    emu::Device device;
    for (const ptx::Function &f : m->functions) {
      if (!f.isKernel || !f.hasBody) continue;
      ptx::DiagnosticList kd;
      if (!only.empty() && m->str(f.name).find(only) == std::string::npos) continue;
      auto k = device.decode(*m, m->str(f.name), kd);
      if (!k) continue;
      // Cold: LLVM compiles every kernel (the object goes to a fresh disk
      // cache); then again from that cache, as a second run of a program.
      translator::JitOptions options;
      options.eager = true;
      options.memoryCache = false;
      options.cacheDirectory = cacheDir;
      translator::CompileReport report;
      auto engine = translator::CompiledEngine::compile(*k, options, report);
      translator::CompileReport again;
      if (engine && translator::CompiledEngine::compile(*k, options, again) &&
          again.cache == translator::CacheResult::Disk)
        hitSeconds += again.seconds, ++hits;
      ++kernels;
      if (!engine) {
        ++failed;
        std::printf("%s %s: %s\n", path.c_str(), k->name.c_str(), report.error.c_str());
        continue;
      }
      instructions += report.code.instructions;
      native += report.code.native;
      handlers += report.code.handlerCalls;
      interpreted += report.code.interpreted;
      uniformAddresses += report.code.uniformAddresses;
      consecutiveAddresses += report.code.consecutiveAddresses;
      registers += report.code.registers;
      scalarRegisters += report.code.scalarRegisters;
      seconds += report.seconds;
      irInstructions += report.code.irInstructions;
      if (each)
        lines.push_back({report.seconds, k->name, report.code.instructions, report.code.registers,
                         report.code.irInstructions});
      for (const auto &[opcode, n] : report.code.handlerOpcodes) handlerOpcodes[opcode] += n;
    }
  }
  std::printf("%zu corpus files, %llu kernels (%llu failed to compile), %llu instructions\n", files.size(),
              (unsigned long long)kernels, (unsigned long long)failed, (unsigned long long)instructions);
  auto pct = [&](uint64_t n) { return instructions ? 100.0 * double(n) / double(instructions) : 0.0; };
  std::printf("compiled to vector code   %8llu  %5.1f%%\n", (unsigned long long)native, pct(native));
  std::printf("interpreter handler calls %8llu  %5.1f%%\n", (unsigned long long)handlers, pct(handlers));
  std::printf(
      "interpreter loop          %8llu  %5.1f%%  (calls, exits, barriers, brx.idx; branches that diverge)\n",
      (unsigned long long)interpreted, pct(interpreted));
  std::printf("memory accesses the analyses settle: %llu one address (warp-uniform base), %llu consecutive "
              "lanes (base + size * %%tid.x)\n",
              (unsigned long long)uniformAddresses, (unsigned long long)consecutiveAddresses);
  std::printf("registers in SSA form: %llu, of which %llu (%.1f%%) warp-uniform and kept as one scalar\n",
              (unsigned long long)registers, (unsigned long long)scalarRegisters,
              registers ? 100.0 * scalarRegisters / registers : 0.0);
  std::printf("compile time %.2f s: %.1f ms per 1,000 PTX instructions (one host thread); %.1f LLVM IR "
              "instructions per PTX instruction\n",
              seconds, instructions ? 1e6 * seconds / double(instructions) : 0.0,
              instructions ? double(irInstructions) / double(instructions) : 0.0);
  std::printf("from the disk cache (%llu of %llu kernels): %.2f s, %.1fx faster than compiling\n",
              (unsigned long long)hits, (unsigned long long)kernels, hitSeconds,
              hitSeconds > 0 ? seconds / hitSeconds : 0.0);
  std::filesystem::remove_all(cacheDir, ec);
  std::sort(lines.begin(), lines.end(),
            [](const KernelLine &a, const KernelLine &b) { return a.seconds < b.seconds; });
  for (const KernelLine &l : lines)
    std::printf("  %8.3f s %6u instr %6u slots %8llu IR  %s\n", l.seconds, l.instructions, l.slots,
                (unsigned long long)l.ir, l.name.c_str());
  std::vector<std::pair<uint64_t, std::string>> top;
  for (const auto &[opcode, n] : handlerOpcodes) top.emplace_back(n, opcode);
  std::sort(top.rbegin(), top.rend());
  std::printf("handler calls by instruction (static count):\n");
  for (size_t i = 0; i < top.size() && i < 30; ++i)
    std::printf("  %-28s %7llu  %5.1f%%\n", top[i].second.c_str(), (unsigned long long)top[i].first,
                pct(top[i].first));
  return 0;
}
