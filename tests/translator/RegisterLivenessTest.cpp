// RegisterLiveness: which registers compiled code reads from the register
// file when a group starts running and writes back when it stops. A register
// missing from a live set is a wrong value in compiled code, so each rule has
// its case: unguarded destinations replace, guarded ones do not, a guarded
// exit or return falls through, loops carry, vector destinations replace
// their elements, shuffle sources are held in every lane.
#include "translator/RegisterLiveness.h"
#include "emulator/Device.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Decoded {
  std::unique_ptr<ptx::Module> module;
  emu::Device device;
  std::unique_ptr<emu::Kernel> kernel;
};

/// Decodes kernel `k` of a module whose body is `body` (registers %r0-%r9,
/// %rd0-%rd3, %p0-%p3).
std::unique_ptr<Decoded> decode(const std::string &body) {
  const std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                           ".visible .entry k(.param .u64 out)\n{\n"
                           ".reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n" +
                           body + "}\n";
  auto d = std::make_unique<Decoded>();
  ptx::DiagnosticList diags;
  d->module = ptx::parseModule(text, "liveness.ptx", diags);
  EXPECT_TRUE(d->module) << diags.renderText();
  if (!d->module) return nullptr;
  d->kernel = d->device.decode(*d->module, "k", diags);
  EXPECT_TRUE(d->kernel) << diags.renderText();
  return d->kernel ? std::move(d) : nullptr;
}

/// The slot of register `name` in the kernel (its operand in some instruction).
uint32_t slot(const emu::Kernel &k, const std::string &name) {
  const ptx::Function &fn = *k.regions[0].function;
  for (const ptx::RegisterDecl &d : fn.regDecls) {
    const std::string prefix(k.module->str(d.name));
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    if (d.count == 0 && rest.empty()) return d.firstRegister;
    if (d.count && !rest.empty() && std::all_of(rest.begin(), rest.end(), ::isdigit))
      return d.firstRegister + static_cast<uint32_t>(std::stoul(rest));
  }
  ADD_FAILURE() << "no register " << name;
  return UINT32_MAX;
}

bool liveAt(const emu::Kernel &k, uint32_t pc, const std::string &name) {
  translator::RegisterLiveness live(k, k.regions[0]);
  const std::vector<uint32_t> in = live.liveIn(pc);
  return std::binary_search(in.begin(), in.end(), slot(k, name));
}

TEST(RegisterLiveness, AnUnguardedDestinationReplacesTheRegister) {
  auto d = decode("mov.u32 %r1, 5;\nadd.u32 %r2, %r1, 1;\nst.global.u32 [%rd0], %r2;\nret;\n");
  ASSERT_TRUE(d);
  EXPECT_FALSE(liveAt(*d->kernel, 0, "%r1"));
  EXPECT_TRUE(liveAt(*d->kernel, 1, "%r1"));
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%rd0"));
  EXPECT_FALSE(liveAt(*d->kernel, 0, "%r2"));
}

TEST(RegisterLiveness, AGuardedDestinationKeepsTheOldValueLive) {
  // Lanes whose %p0 is false keep the old %r1.
  auto d = decode("@%p0 mov.u32 %r1, 5;\nst.global.u32 [%rd0], %r1;\nret;\n");
  ASSERT_TRUE(d);
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%r1"));
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%p0"));
}

TEST(RegisterLiveness, AGuardedExitFallsThrough) {
  // The lanes that do not exit go on and read %r3 (EngineFuzz found this).
  auto d = decode("@%p1 ret;\nst.global.u32 [%rd0], %r3;\nret;\n");
  ASSERT_TRUE(d);
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%r3"));
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%p1"));
}

TEST(RegisterLiveness, LoopsCarryTheirValues) {
  auto d = decode("mov.u32 %r0, 0;\n"
                  "L:\nadd.u32 %r0, %r0, %r5;\nsetp.lt.u32 %p0, %r0, 100;\n@%p0 bra L;\n"
                  "st.global.u32 [%rd0], %r0;\nret;\n");
  ASSERT_TRUE(d);
  // pc 1 heads the loop: %r0 and %r5 come around the back edge.
  EXPECT_TRUE(liveAt(*d->kernel, 1, "%r0"));
  EXPECT_TRUE(liveAt(*d->kernel, 1, "%r5"));
  EXPECT_TRUE(liveAt(*d->kernel, 1, "%rd0"));
  EXPECT_FALSE(liveAt(*d->kernel, 0, "%r0"));
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%r5"));
  // The branch reads %p0; the loop's successor is the store.
  EXPECT_TRUE(liveAt(*d->kernel, 3, "%p0"));
  EXPECT_FALSE(liveAt(*d->kernel, 1, "%p0"));
}

TEST(RegisterLiveness, VectorDestinationsReplaceTheirElements) {
  auto d = decode("ld.global.v2.u32 {%r1, %r2}, [%rd0];\nadd.u32 %r3, %r1, %r2;\n"
                  "st.global.u32 [%rd0], %r3;\nret;\n");
  ASSERT_TRUE(d);
  EXPECT_FALSE(liveAt(*d->kernel, 0, "%r1"));
  EXPECT_FALSE(liveAt(*d->kernel, 0, "%r2"));
  EXPECT_TRUE(liveAt(*d->kernel, 0, "%rd0"));
}

TEST(RegisterLiveness, ShuffleSourcesAreHeldInEveryLane) {
  auto d = decode("mov.u32 %r1, %laneid;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n"
                  "st.global.u32 [%rd0], %r2;\nret;\n");
  ASSERT_TRUE(d);
  translator::RegisterLiveness live(*d->kernel, d->kernel->regions[0]);
  const auto &cross = live.crossLane();
  EXPECT_TRUE(std::binary_search(cross.begin(), cross.end(), slot(*d->kernel, "%r1")));
  EXPECT_FALSE(std::binary_search(cross.begin(), cross.end(), slot(*d->kernel, "%r2")));
  // ... and written back wherever compiled code stops, live or not.
  const auto &resumable = live.resumable();
  EXPECT_TRUE(std::binary_search(resumable.begin(), resumable.end(), slot(*d->kernel, "%r1")));
}

TEST(RegisterLiveness, BarriersResumeAfterThemselves) {
  // A group waiting at the barrier resumes at the instruction after it, and
  // what it reads there must be in the register file.
  auto d = decode("mov.u32 %r1, %tid.x;\nbar.sync 0;\nst.global.u32 [%rd0], %r1;\nret;\n");
  ASSERT_TRUE(d);
  EXPECT_TRUE(liveAt(*d->kernel, 1, "%r1"));
  EXPECT_TRUE(liveAt(*d->kernel, 2, "%r1"));
  translator::RegisterLiveness live(*d->kernel, d->kernel->regions[0]);
  const auto &resumable = live.resumable();
  EXPECT_TRUE(std::binary_search(resumable.begin(), resumable.end(), slot(*d->kernel, "%r1")));
}

TEST(RegisterLiveness, SlotsOfAnInstructionIncludeItsGuardAndAddress) {
  auto d = decode("@%p2 st.global.u32 [%rd1+4], %r4;\nret;\n");
  ASSERT_TRUE(d);
  translator::RegisterLiveness live(*d->kernel, d->kernel->regions[0]);
  std::vector<uint32_t> slots = live.slotsOf(0);
  std::sort(slots.begin(), slots.end());
  for (const char *name : {"%p2", "%rd1", "%r4"})
    EXPECT_TRUE(std::binary_search(slots.begin(), slots.end(), slot(*d->kernel, name))) << name;
}

} // namespace
