// The driver functions libcudart.so.13 serves are reached by the names libcuda.so.1 exports: each
// one listed (DRIVER_ENTRY in runtime/cudart/Driver*.cpp) must be a name NVIDIA's driver exports,
// or no program could reach it (a misspelt variant such as cuMemcpyHtoD_v2Async would be dead).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

extern "C" void *ptxvm_driver_entry(const char *name);

namespace {

std::set<std::string> exportedNames() {
  std::set<std::string> names;
  std::ifstream in(std::string(PTXVM_SOURCE_DIR) + "/runtime/interpose/libcuda-symbols.txt");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("cu", 0) == 0) names.insert(line);
  return names;
}

TEST(DriverEntries, EveryServedFunctionHasAnExportedName) {
  std::set<std::string> exported = exportedNames();
  ASSERT_GT(exported.size(), 600u);
  // Entries written out (DRIVER_ENTRY(name)) in the sources.
  std::regex entry(R"(DRIVER_ENTRY\((\w+)\))");
  std::set<std::string> listed;
  for (const auto &file :
       std::filesystem::directory_iterator(std::string(PTXVM_SOURCE_DIR) + "/runtime/cudart")) {
    std::string name = file.path().filename().string();
    if (name.rfind("Driver", 0) != 0 || file.path().extension() != ".cpp") continue;
    std::ifstream in(file.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it)
      listed.insert((*it)[1]);
  }
  ASSERT_GT(listed.size(), 150u);
  for (const std::string &name : listed) {
    EXPECT_TRUE(exported.count(name)) << name << " is not a name libcuda.so.1 exports";
    EXPECT_NE(ptxvm_driver_entry(name.c_str()), nullptr) << name;
  }
  // The per-thread synchronous forms (_ptds) are the plain calls.
  EXPECT_EQ(ptxvm_driver_entry("cuMemcpyHtoD_v2_ptds"), ptxvm_driver_entry("cuMemcpyHtoD_v2"));
  EXPECT_EQ(ptxvm_driver_entry("cuArrayCreate_v2"), nullptr);
}

} // namespace
