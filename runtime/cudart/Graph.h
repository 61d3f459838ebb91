// CUDA graphs as the runtime keeps them: nodes with the work each does and the nodes it depends
// on, instantiated graphs (the work in one order that keeps every dependency), and the state of
// a stream capture (the graph being built and, per capturing stream, the nodes its next work
// depends on). Graphs.cpp serves the API; Runtime::submit records captured work.
#pragma once

#include "runtime/cudart/CudaTypes.h"
#include "runtime/cudart/DeviceServices.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace cudart {

class Runtime;
struct StreamCapture;

/// The device memory of a graph's allocation node. Its address is fixed when the node is made
/// (as CUDA fixes it, so kernels of the graph can be given it) and the bytes stay reserved while
/// a node or an instantiation holds them. `held` says whether the allocation is the program's
/// now: set when the allocation node runs, cleared by a free node, cudaFreeAsync or cudaFree.
/// Memory still held when the last holder goes stays the program's, for cudaFree.
struct GraphMemory {
  GraphMemory(Runtime &rt, uint64_t address, size_t bytes);
  ~GraphMemory();
  /// The allocation node ran: the memory is the program's.
  void allocate();
  /// Given back (free node, cudaFreeAsync, cudaFree); false when it was not allocated.
  bool release();
  GraphMemory(const GraphMemory &) = delete;
  GraphMemory &operator=(const GraphMemory &) = delete;
  Runtime &rt;
  const void *device; // the device it came from: after a reset it is not freed there
  uint64_t address;
  size_t bytes;
  std::atomic<bool> held{false};
};

/// What cudaDeviceGetGraphMemAttribute reports: bytes of graph memory allocated by launches
/// and not freed (used), and reserved for allocation nodes (reserved), with their highs.
struct GraphMemoryUse {
  std::atomic<uint64_t> used{0}, usedHigh{0}, reserved{0}, reservedHigh{0};
  void add(std::atomic<uint64_t> &current, std::atomic<uint64_t> &high, uint64_t bytes);
};

/// A node's parameters as they were given, for cudaGraph*NodeGetParams (the kind of the node
/// says which part holds them).
struct NodeParams {
  cudaKernelNodeParams kernel{};  // kernelParams and extra are rebuilt when asked for
  std::vector<uint8_t> arguments; // the kernel's arguments, each at its offset
  std::vector<size_t> argumentOffsets;
  std::vector<void *> argumentPointers; // what kernel.kernelParams points to when returned
  cudaMemcpy3DParms copy{};
  cudaMemsetParams fill{};
  cudaHostNodeParams host{};
  cudaMemAllocNodeParams allocation{}; // dptr: the address, fixed when the node is made
  void *freed = nullptr;               // a free node's address
  cudaConditionalNodeParams conditional{};
};

/// What a node does when an instantiation of its graph runs.
struct CUgraphNode_st {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::function<void()> work;        // kernels, copies, fills, host functions (stream work)
  std::unique_ptr<CUgraph_st> child; // cudaGraphNodeTypeGraph: the node's own copy
  cudaEvent_t event = nullptr;       // event record and wait nodes
  std::vector<CUgraphNode_st *> dependencies;
  std::string label; // for cudaGraphDebugDotPrint
  NodeParams params;
  std::shared_ptr<GraphMemory> memory; // allocation nodes
  CUgraph_st *graph = nullptr;         // the graph that holds it
  /// A conditional node's body graphs (what params.conditional.phGraph_out points to) and handle.
  std::vector<std::unique_ptr<CUgraph_st>> bodies;
  std::vector<CUgraph_st *> bodyHandles;
  std::shared_ptr<ConditionalHandle> condition;
  /// A kernel node's launch attributes (cudaGraphKernelNodeSetAttribute), by id; cooperative and
  /// the cluster shape change how it launches. They stay with the node when its parameters are set.
  std::map<int, cudaLaunchAttributeValue> attributes;
  /// Takes what `made` does (its work, parameters, event and child graph), keeping its place.
  void takeWork(CUgraphNode_st &&made);
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
  const CUgraph_st *clonedFrom = nullptr; // for cudaGraphNodeFindInClone
  /// Moved into a child graph node (cudaGraphChildGraphOwnershipMove): its parent owns it, and it
  /// may not be instantiated, moved or cloned into another node, or given memory allocation or
  /// free nodes (cudaErrorNotSupported, as on an H200), destroyed or used to update an
  /// instantiation (cudaErrorInvalidValue).
  bool moved = false;
  CUgraphNode_st &add(cudaGraphNodeType type, std::vector<CUgraphNode_st *> dependencies, std::string label);
  bool owns(const CUgraphNode_st *node) const;
  /// A copy with its own nodes (child graphs included), dependencies mapped onto them.
  std::unique_ptr<CUgraph_st> clone() const;
  /// Whether it or a graph inside it holds a conditional node (such graphs cannot be cloned).
  bool hasConditional() const;
  /// Whether `node` is `ancestor` or depends on it, directly or not.
  static bool reaches(const CUgraphNode_st *node, const CUgraphNode_st *ancestor);
};

/// An instantiated graph: its nodes' work in an order that keeps every dependency, child graphs
/// flattened into it. A launch runs the steps one after the other, in stream order.
struct CUgraphExec_st {
  struct Step {
    cudaGraphNodeType type;
    std::function<void()> work;
    cudaEvent_t event;
    const CUgraphNode_st *node;          // the node of the instantiated graph it came from (or of a child)
    const CUgraphNode_st *top;           // that node, or the child-graph node of the instantiated graph
    bool enabled = true;                 // cudaGraphNodeSetEnabled
    std::shared_ptr<GraphMemory> memory; // an allocation node's, held while the instantiation is
  };
  std::vector<Step> steps;
  unsigned long long flags = 0;
  /// The instantiated graph's topology (kinds and dependencies), which cudaGraphExecUpdate keeps.
  std::string topology;
  /// The handles of its conditional nodes: a launch first sets those that ask for it to their
  /// default values.
  std::vector<std::shared_ptr<ConditionalHandle>> conditions;
};

/// The graph `graph` names: one the program made, a child graph's node's own (as
/// cudaGraphChildGraphNodeGetGraph hands out) or a capture's under way (as
/// cudaStreamGetCaptureInfo does); null when it names none.
CUgraph_st *findGraph(Runtime &rt, cudaGraph_t graph);
/// Whether `inner` is a graph inside `graph` (a child graph node's, or a conditional body), at any depth.
bool contains(const CUgraph_st &graph, const CUgraph_st *inner);
/// Fill `node` (its work, label and parameters) from a call's parameters, or return the error a
/// GPU gives for them: what cudaGraphAdd*Node and the setters share (Graphs.cpp).
cudaError_t makeKernelNode(Runtime &rt, const cudaKernelNodeParams *p, CUgraphNode_st &node);
cudaError_t makeCopyNode(Runtime &rt, const cudaMemcpy3DParms *p, CUgraphNode_st &node);
cudaError_t makeCopyNode1D(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                           CUgraphNode_st &node);
cudaError_t makeFillNode(Runtime &rt, const cudaMemsetParams *p, CUgraphNode_st &node);
cudaError_t makeHostNode(Runtime &rt, const cudaHostNodeParams *p, CUgraphNode_st &node);
cudaError_t makeEventNode(Runtime &rt, cudaEvent_t event, CUgraphNode_st &node);
cudaError_t makeChildNode(Runtime &rt, cudaGraph_t child, CUgraphNode_st &node);
cudaError_t makeAllocNode(Runtime &rt, cudaMemAllocNodeParams *p, CUgraphNode_st &node);
cudaError_t makeFreeNode(Runtime &rt, void *address, CUgraphNode_st &node);
/// The entry of a cudaGraphAdd*Node call: checks the graph and the dependencies, then adds the
/// node `make` fills in (or returns its error).
using MakeNode = std::function<cudaError_t(Runtime &, CUgraphNode_st &)>;
cudaError_t addGraphNode(const char *name, cudaGraphNode_t *out, cudaGraph_t graph,
                         const cudaGraphNode_t *deps, size_t n, cudaGraphNodeType type, const MakeNode &make);
/// A conditional node with its empty body graphs; sets p->phGraph_out (GraphNodes.cpp).
cudaError_t makeConditionalNode(Runtime &rt, cudaConditionalNodeParams *p, CUgraphNode_st &node);
/// A node of any kind from cudaGraphAddNode's parameters (GraphNodes.cpp).
cudaError_t makeNode(Runtime &rt, cudaGraphNodeParams *p, CUgraphNode_st &node);
/// Adds `made` to a capture's graph after the capturing stream's last work (cudaMallocAsync and
/// cudaFreeAsync captured).
void addCaptured(StreamCapture &capture, CUgraphNode_st &&made);
/// The steps of `graph` in dependency order (nodes in the order they were added among those
/// ready), child graphs inline, a conditional node one step that runs its bodies' steps; false
/// when dependencies form a cycle.
bool flatten(Runtime &rt, const CUgraph_st &graph, std::vector<CUgraphExec_st::Step> &steps,
             const CUgraphNode_st *top = nullptr);
/// The step of conditional node `node`, its bodies flattened; false for a cycle in one.
bool conditionalStep(Runtime &rt, const CUgraphNode_st &node, CUgraphExec_st::Step &step);
/// The handles of the conditional nodes in `graph` and the graphs inside it.
void conditionsOf(const CUgraph_st &graph, std::vector<std::shared_ptr<ConditionalHandle>> &out);
/// The steps of instantiation `exec` that came from child-graph node `node` take the work of
/// `child` (of the same topology as the node's graph); cudaErrorInvalidValue when they cannot.
cudaError_t setChildSteps(Runtime &rt, CUgraphExec_st &exec, const CUgraphNode_st *node,
                          const CUgraph_st &child);
/// The kinds and dependencies of `graph`'s nodes, child graphs included, as text: two graphs
/// with equal topologies can update one instantiation.
std::string topologyOf(const CUgraph_st &graph);

/// One capture sequence (cudaStreamBeginCapture to cudaStreamEndCapture), shared by the
/// streams that joined it through events.
struct CaptureSequence {
  std::unique_ptr<CUgraph_st> graph = std::make_unique<CUgraph_st>();
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread; // the one that began it
  unsigned long long id = 0;
  const void *origin = nullptr; // the Queue it began on
  bool invalidated = false;
  bool ended = false; // its graph is the program's now (or gone): events recorded in it stand for nothing
};

/// A capturing stream's part of a sequence: the nodes its next work depends on.
struct StreamCapture {
  std::shared_ptr<CaptureSequence> sequence;
  std::vector<CUgraphNode_st *> frontier;
};

/// What Runtime::submit records when its stream is capturing.
struct WorkInfo {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::string label;
};

} // namespace cudart
