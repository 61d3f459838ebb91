// CUDA graphs as the runtime keeps them: nodes with the work each does and the nodes it depends
// on, instantiated graphs (the work in one order that keeps every dependency), and the state of
// a stream capture (the graph being built and, per capturing stream, the nodes its next work
// depends on). Graphs.cpp serves the API; Runtime::submit records captured work.
#pragma once

#include "runtime/cudart/CudaTypes.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace cudart {

/// What a node does when an instantiation of its graph runs.
struct CUgraphNode_st {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::function<void()> work;        // kernels, copies, fills, host functions (stream work)
  std::unique_ptr<CUgraph_st> child; // cudaGraphNodeTypeGraph: the node's own copy
  cudaEvent_t event = nullptr;       // event record and wait nodes
  std::vector<CUgraphNode_st *> dependencies;
  std::string label; // for cudaGraphDebugDotPrint
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
  CUgraphNode_st &add(cudaGraphNodeType type, std::vector<CUgraphNode_st *> dependencies, std::string label);
  bool owns(const CUgraphNode_st *node) const;
  /// A copy with its own nodes (child graphs included), dependencies mapped onto them.
  std::unique_ptr<CUgraph_st> clone() const;
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
  };
  std::vector<Step> steps;
};

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
