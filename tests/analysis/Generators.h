// PTX generators for the analysis tests: kernels whose CFG is an arbitrary
// graph (every block ends in brx.idx over its successors), random programs
// over a few registers for checking SSA against reaching definitions
// computed by brute force, and large irreducible CFGs for the analyses'
// complexity (also used by bench_analysis).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace analysis::test {

/// The directives the analysis tests' modules start with.
inline constexpr char kModuleHeader[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// A kernel `g` whose block i is labelled Li and has exactly the given
/// successors, in order (none: `ret`). Block 0 is the entry.
std::string graphKernel(uint32_t numBlocks, const std::vector<std::pair<uint32_t, uint32_t>> &edges);

/// Random edges over `n` blocks: each block gets 0-3 successors, block i
/// always one of i+1 (when it exists) so most blocks are reachable.
std::vector<std::pair<uint32_t, uint32_t>> randomEdges(uint32_t n, std::mt19937 &rng);

/// A random kernel `r` on the CFG of randomEdges: each block reads and
/// writes registers %r1..%r6, some writes guarded by %p1.
std::string randomProgram(uint32_t n, std::mt19937 &rng);

/// Families of irreducible control flow, each a chain of regions:
///   TwoEntry: a loop of two blocks B <-> C that the region's first block
///             enters at either, exits from both;
///   Nested:   the same with the next region (1 to 4 deep) inside B, so
///             irreducible loops nest in irreducible loops;
///   Ladder:   loops H -> M -> T -> H whose middle block M also jumps into
///             the middle of the next region's loop, and one reducible loop
///             around the whole ladder.
enum class IrreducibleShape : uint8_t { TwoEntry, Nested, Ladder };
/// Which branch conditions depend on the thread: none, all, or every other
/// region's.
enum class Conditions : uint8_t { Uniform, Divergent, Mixed };

std::string_view irreducibleShapeName(IrreducibleShape s); // "two-entry", "nested", "ladder"
std::optional<IrreducibleShape> irreducibleShapeNamed(std::string_view name);
constexpr IrreducibleShape kIrreducibleShapes[] = {IrreducibleShape::TwoEntry, IrreducibleShape::Nested,
                                                   IrreducibleShape::Ladder};

/// A kernel `irr(.param .u64 out, .param .u32 n)` with `numBlocks` labelled
/// blocks or a few more (every block starts with a label). Loop-carried
/// registers are updated in every region, and four registers written before
/// the first region are read by many regions and stored at the end, so they
/// are live across all of them.
std::string irreducibleKernel(IrreducibleShape shape, uint32_t numBlocks,
                              Conditions conditions = Conditions::Mixed);

} // namespace analysis::test
