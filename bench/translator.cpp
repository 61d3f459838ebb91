// bench_translator: compiles every kernel of the corpus (kernels/*.cu as
// nvcc emits them for sm_80, PTXVM_CORPUS_DIR) for --device cpu and prints
// what became of its instructions — compiled to vector code, calls of an
// interpreter handler (by opcode, most frequent first), left to the
// interpreter's loop — and the compile time per 1,000 PTX instructions,
// measured in this run, cold and from the on-disk cache.
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
  std::string dir = argc > 1 ? argv[1] : PTXVM_CORPUS_DIR;
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
  std::printf("compile time %.2f s: %.1f ms per 1,000 PTX instructions (one host thread)\n", seconds,
              instructions ? 1e6 * seconds / double(instructions) : 0.0);
  std::printf("from the disk cache (%llu of %llu kernels): %.2f s, %.1fx faster than compiling\n",
              (unsigned long long)hits, (unsigned long long)kernels, hitSeconds,
              hitSeconds > 0 ? seconds / hitSeconds : 0.0);
  std::filesystem::remove_all(cacheDir, ec);
  std::vector<std::pair<uint64_t, std::string>> top;
  for (const auto &[opcode, n] : handlerOpcodes) top.emplace_back(n, opcode);
  std::sort(top.rbegin(), top.rend());
  std::printf("handler calls by instruction (static count):\n");
  for (size_t i = 0; i < top.size() && i < 30; ++i)
    std::printf("  %-28s %7llu  %5.1f%%\n", top[i].second.c_str(), (unsigned long long)top[i].first,
                pct(top[i].first));
  return 0;
}
