// CUDA graphs and stream capture. A node holds the work it does (the same stream work a launch,
// copy, fill or host function issues, checked when the node is made), so a graph runs through
// the streams' machinery: cudaGraphLaunch issues one item that runs the instantiation's steps in
// an order keeping every dependency. Stream capture records what Runtime::submit is given as
// nodes after the capturing stream's frontier; events join other streams to a capture.
// Served: graphs with kernel, memcpy, memset, host, child-graph, empty, event record and event
// wait nodes; instantiate, launch, clone, destroy; node queries; DOT output; capture in every
// mode, across streams joined by events, with the errors a GPU gives for waiting on, or
// synchronising with, a capturing stream; allocation and free nodes (also captured from
// cudaMallocAsync/cudaFreeAsync). GraphEdits.cpp serves edges, node parameters and instantiation
// updates. Not yet: conditional and external-semaphore nodes (cudaErrorNotSupported, said once).
#include "runtime/cudart/Runtime.h"
#include "runtime/cudart/Transfers.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

using namespace cudart;

namespace cudart {

CUgraphNode_st &CUgraph_st::add(cudaGraphNodeType type, std::vector<CUgraphNode_st *> dependencies,
                                std::string label) {
  auto node = std::make_unique<CUgraphNode_st>();
  node->type = type;
  node->dependencies = std::move(dependencies);
  node->label = std::move(label);
  node->graph = this;
  nodes.push_back(std::move(node));
  return *nodes.back();
}

bool CUgraph_st::owns(const CUgraphNode_st *node) const {
  return std::any_of(nodes.begin(), nodes.end(), [&](const auto &n) { return n.get() == node; });
}

std::unique_ptr<CUgraph_st> CUgraph_st::clone() const {
  auto copy = std::make_unique<CUgraph_st>();
  copy->clonedFrom = this;
  std::map<const CUgraphNode_st *, CUgraphNode_st *> mapped;
  for (const auto &n : nodes) {
    std::vector<CUgraphNode_st *> deps;
    for (const CUgraphNode_st *d : n->dependencies) deps.push_back(mapped.at(d));
    CUgraphNode_st &c = copy->add(n->type, std::move(deps), n->label);
    c.work = n->work;
    c.event = n->event;
    c.params = n->params;
    c.attributes = n->attributes;
    c.memory = n->memory; // one allocation, whichever graph's instantiation runs
    if (n->child) c.child = n->child->clone();
    mapped[n.get()] = &c;
  }
  return copy;
}

void CUgraphNode_st::takeWork(CUgraphNode_st &&made) {
  work = std::move(made.work);
  child = std::move(made.child);
  event = made.event;
  params = std::move(made.params);
  memory = std::move(made.memory);
  label = std::move(made.label);
  bodies = std::move(made.bodies);
  bodyHandles = std::move(made.bodyHandles);
  condition = std::move(made.condition);
}

namespace {
CUgraph_st *findIn(const CUgraph_st &graph, cudaGraph_t wanted) {
  for (const auto &n : graph.nodes) {
    if (n->child) {
      if (n->child.get() == wanted) return n->child.get();
      if (CUgraph_st *g = findIn(*n->child, wanted)) return g;
    }
    for (const auto &body : n->bodies) {
      if (body.get() == wanted) return body.get();
      if (CUgraph_st *g = findIn(*body, wanted)) return g;
    }
  }
  return nullptr;
}
} // namespace

bool contains(const CUgraph_st &graph, const CUgraph_st *inner) {
  return findIn(graph, const_cast<CUgraph_st *>(inner)) != nullptr;
}

CUgraph_st *findGraph(Runtime &rt, cudaGraph_t graph) {
  if (!graph) return nullptr;
  if (auto it = rt.graphs.find(graph); it != rt.graphs.end()) return it->second.get();
  // The graph of a capture under way (cudaStreamGetCaptureInfo hands it out, to add nodes to).
  for (const auto &[queue, capture] : rt.captures)
    if (capture.sequence->graph.get() == graph) return capture.sequence->graph.get();
  for (const auto &[handle, g] : rt.graphs)
    if (CUgraph_st *child = findIn(*g, graph)) return child;
  return nullptr;
}

bool CUgraph_st::reaches(const CUgraphNode_st *node, const CUgraphNode_st *ancestor) {
  std::vector<const CUgraphNode_st *> todo{node};
  std::set<const CUgraphNode_st *> seen;
  while (!todo.empty()) {
    const CUgraphNode_st *n = todo.back();
    todo.pop_back();
    if (n == ancestor) return true;
    if (!seen.insert(n).second) continue;
    todo.insert(todo.end(), n->dependencies.begin(), n->dependencies.end());
  }
  return false;
}

StreamCapture *Runtime::captureOf(cudaStream_t s) {
  if (captures.empty()) return nullptr;
  auto it = captures.find(queueOf(s).get());
  return it == captures.end() ? nullptr : &it->second;
}

namespace {

/// Ends a capture sequence for every stream in it (invalidated or ended).
void endSequence(Runtime &rt, CaptureSequence *sequence) {
  sequence->ended = true;
  std::erase_if(rt.captures, [&](const auto &entry) { return entry.second.sequence.get() == sequence; });
}

void invalidate(StreamCapture &c) { c.sequence->invalidated = true; }

} // namespace

cudaError_t Runtime::mayIssue(cudaStream_t s) {
  if (StreamCapture *c = captureOf(s))
    return c->sequence->invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
  // The legacy default stream would wait for a capturing blocking stream.
  if (queueOf(s)->kind() != Queue::Kind::Legacy) return cudaSuccess;
  bool implicit = false;
  for (auto &[queue, c] : captures)
    if (queue->kind() == Queue::Kind::Blocking) {
      invalidate(c);
      implicit = true;
    }
  return implicit ? cudaErrorStreamCaptureImplicit : cudaSuccess;
}

cudaError_t Runtime::mayWaitFor(cudaStream_t s) {
  StreamCapture *c = captureOf(s);
  if (!c) return maySynchronize();
  invalidate(*c);
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t Runtime::maySynchronize() {
  bool refused = false;
  for (auto &[queue, c] : captures) {
    const CaptureSequence &seq = *c.sequence;
    if (seq.mode == cudaStreamCaptureModeGlobal ||
        (seq.mode == cudaStreamCaptureModeThreadLocal && seq.thread == std::this_thread::get_id())) {
      invalidate(c);
      refused = true;
    }
  }
  return refused ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

} // namespace cudart

namespace {

/// The nodes a call names as dependencies, all of `graph`; false when one is not.
bool dependenciesOf(const CUgraph_st &graph, const cudaGraphNode_t *deps, size_t n,
                    std::vector<CUgraphNode_st *> &out) {
  if (n && !deps) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!deps[i] || !graph.owns(deps[i]) || std::count(out.begin(), out.end(), deps[i])) return false;
    out.push_back(deps[i]);
  }
  return true;
}

/// The entry of a cudaGraphAdd*Node call: checks the graph and dependencies, then adds the node
/// that `make` fills in (or returns its error).
template <class Make>
cudaError_t addNode(const char *name, cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                    size_t n, cudaGraphNodeType type, Make make) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  CUgraph_st *found = findGraph(api.rt, graph);
  std::vector<CUgraphNode_st *> dependencies;
  if (!out || !found || !dependenciesOf(*found, deps, n, dependencies)) return api(cudaErrorInvalidValue);
  if (found->moved && (type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree))
    return api(cudaErrorNotSupported);
  CUgraphNode_st candidate;
  candidate.type = type;
  if (cudaError_t e = make(api.rt, candidate)) return api(e);
  CUgraphNode_st &node = found->add(type, std::move(dependencies), {});
  node.takeWork(std::move(candidate));
  *out = &node;
  return cudaSuccess;
}

} // namespace

namespace cudart {

cudaError_t addGraphNode(const char *name, cudaGraphNode_t *out, cudaGraph_t graph,
                         const cudaGraphNode_t *deps, size_t n, cudaGraphNodeType type,
                         const MakeNode &make) {
  return addNode(name, out, graph, deps, n, type, make);
}

bool flatten(Runtime &rt, const CUgraph_st &graph, std::vector<CUgraphExec_st::Step> &steps,
             const CUgraphNode_st *top) {
  std::set<const CUgraphNode_st *> done;
  while (done.size() < graph.nodes.size()) {
    const size_t before = done.size();
    for (const auto &n : graph.nodes) {
      if (done.count(n.get()) || !std::all_of(n->dependencies.begin(), n->dependencies.end(),
                                              [&](auto *d) { return done.count(d); }))
        continue;
      if (n->child) {
        if (!flatten(rt, *n->child, steps, top ? top : n.get())) return false;
      } else if (n->type == cudaGraphNodeTypeConditional) {
        CUgraphExec_st::Step step{n->type, {}, nullptr, n.get(), top ? top : n.get(), true, nullptr};
        if (!conditionalStep(rt, *n, step)) return false;
        steps.push_back(std::move(step));
      } else {
        steps.push_back({n->type, n->work, n->event, n.get(), top ? top : n.get(), true, n->memory});
      }
      done.insert(n.get());
    }
    if (done.size() == before) return false; // a cycle: no node is ever ready
  }
  return true;
}

std::string topologyOf(const CUgraph_st &graph) {
  std::map<const CUgraphNode_st *, size_t> index;
  for (size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].get()] = i;
  std::string out = "(";
  for (const auto &n : graph.nodes) {
    out += std::to_string(n->type) + "<";
    std::vector<size_t> deps;
    for (const CUgraphNode_st *d : n->dependencies) deps.push_back(index.at(d));
    std::sort(deps.begin(), deps.end());
    for (size_t d : deps) out += std::to_string(d) + ",";
    out += ">";
    if (n->child) out += topologyOf(*n->child);
    for (const auto &body : n->bodies) out += topologyOf(*body);
    out += ";";
  }
  return out + ")";
}

cudaError_t makeKernelNode(Runtime &rt, const cudaKernelNodeParams *p, CUgraphNode_st &out) {
  if (!p) return cudaErrorInvalidValue;
  // Arguments in the "extra" form are not served: they need the buffer layout, which
  // kernelParams spells out.
  if (p->extra && !p->kernelParams) return rt.unsupported("cudaKernelNodeParams::extra");
  // The arguments are copied now, as CUDA copies them. The node's attributes say whether it
  // launches cooperatively and in clusters.
  bool cooperative = false;
  dim3 cluster{1, 1, 1};
  if (auto a = out.attributes.find(cudaLaunchAttributeCooperative); a != out.attributes.end())
    cooperative = a->second.cooperative != 0;
  if (auto a = out.attributes.find(cudaLaunchAttributeClusterDimension);
      a != out.attributes.end() && a->second.clusterDim.x != 0)
    cluster = dim3{a->second.clusterDim.x, a->second.clusterDim.y, a->second.clusterDim.z};
  // A device-updatable node launches what device code last set (its handle kept in the attribute).
  std::shared_ptr<DeviceUpdatableNode> updatable;
  if (auto a = out.attributes.find(cudaLaunchAttributeDeviceUpdatableKernelNode);
      a != out.attributes.end() && a->second.deviceUpdatableKernelNode.deviceUpdatable) {
    unsigned long long &handle = a->second.deviceUpdatableKernelNode.devNode;
    if (!handle) handle = rt.services.createDeviceNode();
    updatable = rt.services.deviceNode(handle);
  }
  if (cudaError_t e =
          rt.prepareLaunch("cudaGraphLaunch", p->func, p->gridDim, p->blockDim, p->kernelParams,
                           p->sharedMemBytes, cooperative, cluster, out.work, out.label, updatable))
    return e;
  NodeParams &kept = out.params;
  kept.kernel = *p;
  kept.kernel.kernelParams = kept.kernel.extra = nullptr;
  const runtime::KernelAttributes &attributes = rt.kernel(p->func)->decoded->attributes();
  kept.arguments.assign(attributes.paramBytes, 0);
  kept.argumentOffsets.assign(attributes.paramOffsets.begin(), attributes.paramOffsets.end());
  for (size_t i = 0; i < attributes.paramOffsets.size(); ++i)
    std::memcpy(kept.arguments.data() + attributes.paramOffsets[i], p->kernelParams[i],
                attributes.paramSizes[i]);
  if (updatable) { // the node's parameters, set by the host, are where device updates start
    std::lock_guard lock(updatable->mutex);
    updatable->params = kept.arguments;
    updatable->grid = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
    updatable->enabled = true;
  }
  return cudaSuccess;
}

bool plainEdges(const cudaGraphEdgeData *edgeData, size_t n) {
  if (!edgeData) return true;
  for (size_t i = 0; i < n; ++i) {
    const auto *bytes = reinterpret_cast<const unsigned char *>(&edgeData[i]);
    if (std::any_of(bytes, bytes + sizeof(cudaGraphEdgeData), [](unsigned char b) { return b != 0; }))
      return false;
  }
  return true;
}

void addCaptured(StreamCapture &c, CUgraphNode_st &&made) {
  CUgraphNode_st &node = c.sequence->graph->add(made.type, c.frontier, {});
  node.takeWork(std::move(made));
  c.frontier = {&node};
}

cudaError_t makeCopyNode(Runtime &rt, const cudaMemcpy3DParms *p, CUgraphNode_st &out) {
  if (cudaError_t e = copyWork3D(rt, p, out.work, out.label)) return e;
  out.params.copy = *p;
  return cudaSuccess;
}

cudaError_t makeCopyNode1D(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                           CUgraphNode_st &out) {
  if (cudaError_t e = copyWork1D(rt, dst, src, count, kind, out.work, out.label)) return e;
  // As CUDA reports a 1D node: one row of `count` bytes.
  cudaMemcpy3DParms &c = out.params.copy;
  c = {};
  c.srcPtr = {const_cast<void *>(src), count, count, 1};
  c.dstPtr = {dst, count, count, 1};
  c.extent = {count, 1, 1};
  c.kind = kind;
  return cudaSuccess;
}

cudaError_t makeFillNode(Runtime &rt, const cudaMemsetParams *p, CUgraphNode_st &out) {
  if (!p) return cudaErrorInvalidValue;
  if (cudaError_t e = memsetWork(rt, *p, out.work, out.label)) return e;
  out.params.fill = *p;
  return cudaSuccess;
}

cudaError_t makeHostNode(Runtime &rt, const cudaHostNodeParams *p, CUgraphNode_st &out) {
  if (!p || !p->fn) return cudaErrorInvalidValue;
  out.work = [&rt, fn = p->fn, data = p->userData] {
    if (rt.fault() == cudaSuccess) fn(data);
  };
  out.params.host = *p;
  return cudaSuccess;
}

cudaError_t makeEventNode(Runtime &rt, cudaEvent_t event, CUgraphNode_st &out) {
  if (!rt.events.count(event)) return cudaErrorInvalidResourceHandle;
  out.event = event;
  return cudaSuccess;
}

cudaError_t makeChildNode(Runtime &rt, cudaGraph_t child, CUgraphNode_st &out) {
  CUgraph_st *found = findGraph(rt, child);
  if (found && found->moved) return cudaErrorNotSupported;
  if (!found || found->hasConditional()) return cudaErrorInvalidValue;
  out.child = found->clone(); // the node's own copy, as CUDA makes
  out.child->clonedFrom = nullptr;
  return cudaSuccess;
}

} // namespace cudart

namespace {

const char *typeName(cudaGraphNodeType t) {
  switch (t) {
  case cudaGraphNodeTypeKernel: return "kernel";
  case cudaGraphNodeTypeMemcpy: return "memcpy";
  case cudaGraphNodeTypeMemset: return "memset";
  case cudaGraphNodeTypeHost: return "host";
  case cudaGraphNodeTypeGraph: return "graph";
  case cudaGraphNodeTypeEmpty: return "empty";
  case cudaGraphNodeTypeWaitEvent: return "event wait";
  case cudaGraphNodeTypeEventRecord: return "event record";
  case cudaGraphNodeTypeMemAlloc: return "memory allocation";
  case cudaGraphNodeTypeMemFree: return "memory free";
  case cudaGraphNodeTypeConditional: return "conditional";
  case cudaGraphNodeTypeExtSemaphoreSignal: return "external semaphore signal";
  case cudaGraphNodeTypeExtSemaphoreWait: return "external semaphore wait";
  }
  return "node";
}

/// DOT for `graph`, its child graphs as clusters.
void writeDot(std::ostream &out, const CUgraph_st &graph, const std::string &prefix) {
  std::map<const CUgraphNode_st *, std::string> ids;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    ids[graph.nodes[i].get()] = prefix + "n" + std::to_string(i);
  for (const auto &n : graph.nodes) {
    std::string label = typeName(n->type);
    if (!n->label.empty()) label += "\\n" + n->label;
    for (char &c : label)
      if (c == '"') c = '\'';
    out << "  " << ids[n.get()] << " [shape=box label=\"" << label << "\"];\n";
    if (n->child) {
      out << "  subgraph cluster_" << ids[n.get()] << " {\n  label=\"child graph\";\n";
      writeDot(out, *n->child, ids[n.get()] + "_");
      out << "  }\n";
    }
    for (size_t i = 0; i < n->bodies.size(); ++i) {
      const std::string id = ids[n.get()] + "_body" + std::to_string(i);
      out << "  subgraph cluster_" << id << " {\n  label=\"body " << i << "\";\n";
      writeDot(out, *n->bodies[i], id + "_");
      out << "  }\n";
    }
    for (const CUgraphNode_st *d : n->dependencies) out << "  " << ids[d] << " -> " << ids[n.get()] << ";\n";
  }
}

} // namespace

CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  Api api("cudaGraphCreate");
  if (api.blocked()) return api.sticky();
  if (!pGraph || flags) return api(cudaErrorInvalidValue);
  auto graph = std::make_unique<CUgraph_st>();
  *pGraph = graph.get();
  api.rt.graphs.emplace(graph.get(), std::move(graph));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  Api api("cudaGraphDestroy");
  if (!api.rt.graphs.erase(graph)) return api(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t original) {
  Api api("cudaGraphClone");
  if (api.blocked()) return api.sticky();
  CUgraph_st *found = findGraph(api.rt, original);
  if (!pGraphClone || !found) return api(cudaErrorInvalidValue);
  if (found->hasConditional()) return api(cudaErrorNotSupported); // as CUDA documents
  std::unique_ptr<CUgraph_st> copy = found->clone();
  *pGraphClone = copy.get();
  api.rt.graphs.emplace(copy.get(), std::move(copy));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                const cudaGraphNode_t *deps, size_t n) {
  return addNode("cudaGraphAddEmptyNode", node, graph, deps, n, cudaGraphNodeTypeEmpty,
                 [](Runtime &, CUgraphNode_st &) { return cudaSuccess; });
}

CUDART_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                 const cudaGraphNode_t *deps, size_t n,
                                                 const cudaKernelNodeParams *p) {
  return addNode("cudaGraphAddKernelNode", node, graph, deps, n, cudaGraphNodeTypeKernel,
                 [p](Runtime &rt, CUgraphNode_st &out) { return makeKernelNode(rt, p, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                 const cudaGraphNode_t *deps, size_t n,
                                                 const cudaMemcpy3DParms *p) {
  return addNode("cudaGraphAddMemcpyNode", node, graph, deps, n, cudaGraphNodeTypeMemcpy,
                 [p](Runtime &rt, CUgraphNode_st &out) { return makeCopyNode(rt, p, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph,
                                                   const cudaGraphNode_t *deps, size_t n, void *dst,
                                                   const void *src, size_t count, cudaMemcpyKind kind) {
  return addNode(
      "cudaGraphAddMemcpyNode1D", node, graph, deps, n, cudaGraphNodeTypeMemcpy,
      [&](Runtime &rt, CUgraphNode_st &out) { return makeCopyNode1D(rt, dst, src, count, kind, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                 const cudaGraphNode_t *deps, size_t n,
                                                 const cudaMemsetParams *p) {
  return addNode("cudaGraphAddMemsetNode", node, graph, deps, n, cudaGraphNodeTypeMemset,
                 [p](Runtime &rt, CUgraphNode_st &out) { return makeFillNode(rt, p, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                               const cudaGraphNode_t *deps, size_t n,
                                               const cudaHostNodeParams *p) {
  return addNode("cudaGraphAddHostNode", node, graph, deps, n, cudaGraphNodeTypeHost,
                 [p](Runtime &rt, CUgraphNode_st &out) { return makeHostNode(rt, p, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                     const cudaGraphNode_t *deps, size_t n,
                                                     cudaGraph_t child) {
  return addNode("cudaGraphAddChildGraphNode", node, graph, deps, n, cudaGraphNodeTypeGraph,
                 [child](Runtime &rt, CUgraphNode_st &out) { return makeChildNode(rt, child, out); });
}

namespace {
template <cudaGraphNodeType kType>
cudaError_t addEventNode(const char *name, cudaGraphNode_t *node, cudaGraph_t graph,
                         const cudaGraphNode_t *deps, size_t n, cudaEvent_t event) {
  return addNode(name, node, graph, deps, n, kType,
                 [event](Runtime &rt, CUgraphNode_st &out) { return makeEventNode(rt, event, out); });
}
} // namespace

CUDART_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                      const cudaGraphNode_t *deps, size_t n,
                                                      cudaEvent_t event) {
  return addEventNode<cudaGraphNodeTypeEventRecord>("cudaGraphAddEventRecordNode", node, graph, deps, n,
                                                    event);
}

CUDART_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                    const cudaGraphNode_t *deps, size_t n,
                                                    cudaEvent_t event) {
  return addEventNode<cudaGraphNodeTypeWaitEvent>("cudaGraphAddEventWaitNode", node, graph, deps, n, event);
}

CUDART_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                   const cudaGraphNode_t *deps, size_t n,
                                                   cudaMemAllocNodeParams *p) {
  return addNode("cudaGraphAddMemAllocNode", node, graph, deps, n, cudaGraphNodeTypeMemAlloc,
                 [p](Runtime &rt, CUgraphNode_st &out) { return makeAllocNode(rt, p, out); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                  const cudaGraphNode_t *deps, size_t n, void *dptr) {
  return addNode("cudaGraphAddMemFreeNode", node, graph, deps, n, cudaGraphNodeTypeMemFree,
                 [dptr](Runtime &rt, CUgraphNode_st &out) { return makeFreeNode(rt, dptr, out); });
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type) {
  Api api("cudaGraphNodeGetType");
  if (!node || !type) return api(cudaErrorInvalidValue);
  *type = node->type;
  return cudaSuccess;
}

namespace {
/// Fills `out` (up to *count entries; all of them when null) with the nodes `pick` keeps.
template <class Pick>
cudaError_t listNodes(const char *name, cudaGraph_t graph, cudaGraphNode_t *out, size_t *count, Pick pick) {
  Api api(name);
  CUgraph_st *g = findGraph(api.rt, graph);
  if (!count || !g) return api(cudaErrorInvalidValue);
  size_t found = 0;
  for (const auto &n : g->nodes)
    if (pick(*n)) {
      if (out && found < *count) out[found] = n.get();
      ++found;
    }
  // With an array, *count says how many were written; without, how many there are.
  if (!out || found < *count) *count = found;
  return cudaSuccess;
}
} // namespace

CUDART_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
  return listNodes("cudaGraphGetNodes", graph, nodes, numNodes, [](const CUgraphNode_st &) { return true; });
}

CUDART_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
  return listNodes("cudaGraphGetRootNodes", graph, nodes, numNodes,
                   [](const CUgraphNode_st &n) { return n.dependencies.empty(); });
}

namespace {
/// cudaGraphInstantiate*: the instantiation, or why there is none.
cudaError_t instantiate(Runtime &rt, cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags,
                        cudaGraphInstantiateResult &result) {
  result = cudaGraphInstantiateError;
  CUgraph_st *found = findGraph(rt, graph);
  if (!pGraphExec || !found) return cudaErrorInvalidValue;
  if (found->moved) return cudaErrorNotSupported; // as an H200 answers
  // Auto-free, upload, device launch and priority change nothing here.
  auto exec = std::make_unique<CUgraphExec_st>();
  exec->flags = flags;
  if (!flatten(rt, *found, exec->steps)) { // a cycle: cudaErrorInvalidValue, as on an H200
    result = cudaGraphInstantiateInvalidStructure;
    return cudaErrorInvalidValue;
  }
  exec->topology = topologyOf(*found);
  conditionsOf(*found, exec->conditions);
  *pGraphExec = exec.get();
  rt.graphExecs.emplace(exec.get(), std::move(exec));
  result = cudaGraphInstantiateSuccess;
  return cudaSuccess;
}
} // namespace

CUDART_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               unsigned long long flags) {
  Api api("cudaGraphInstantiate");
  if (api.blocked()) return api.sticky();
  cudaGraphInstantiateResult result;
  return api(instantiate(api.rt, pGraphExec, graph, flags, result));
}

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                         cudaGraphInstantiateParams *params) {
  Api api("cudaGraphInstantiateWithParams");
  if (api.blocked()) return api.sticky();
  if (!params) return api(cudaErrorInvalidValue);
  params->errNode_out = nullptr;
  if ((params->flags & cudaGraphInstantiateFlagUpload) && !api.rt.validStream(params->uploadStream)) {
    params->result_out = cudaGraphInstantiateError;
    return api(cudaErrorInvalidResourceHandle);
  }
  // Uploading changes nothing here: the steps are the runtime's.
  return api(instantiate(api.rt, pGraphExec, graph, params->flags, params->result_out));
}

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                              cudaGraphInstantiateParams *params) {
  if (params && (params->flags & cudaGraphInstantiateFlagUpload))
    params->uploadStream = perThreadDefault(params->uploadStream);
  return cudaGraphInstantiateWithParams(pGraphExec, graph, params);
}

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                        unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  Api api("cudaGraphExecDestroy");
  // A launch still running keeps its own copy of the steps.
  if (!api.rt.graphExecs.erase(exec)) return api(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  Api api("cudaGraphUpload");
  if (api.blocked()) return api.sticky();
  if (!api.rt.graphExecs.count(exec)) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  return cudaSuccess; // nothing to upload: the steps are the runtime's
}

CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  Api api("cudaGraphLaunch");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.graphExecs.find(exec);
  if (it == api.rt.graphExecs.end()) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = api.rt.mayIssue(stream)) return api(e);
  // One stream item runs the steps in order: event waits become waits of
  // the item, event records complete with it and take their time on the way.
  std::vector<QueuePoint> after;
  std::vector<std::function<void()>> work;
  std::vector<EventState *> recorded;
  for (const CUgraphExec_st::Step &step : it->second->steps) {
    if (!step.enabled) continue;
    auto event = api.rt.events.find(step.event);
    if (step.type == cudaGraphNodeTypeWaitEvent) {
      if (event != api.rt.events.end() && event->second.recorded) after.push_back(event->second.point);
    } else if (step.type == cudaGraphNodeTypeEventRecord) {
      if (event == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle); // destroyed since
      auto time = std::make_shared<std::chrono::steady_clock::time_point>();
      event->second.recorded = true;
      event->second.time = time;
      recorded.push_back(&event->second);
      work.push_back([time] { *time = std::chrono::steady_clock::now(); });
    } else if (step.work) {
      work.push_back(step.work);
    }
  }
  // Conditional handles that ask for it start each launch from their default values.
  std::vector<std::shared_ptr<ConditionalHandle>> resets;
  for (const auto &c : it->second->conditions)
    if (c->assignDefault) resets.push_back(c);
  QueuePoint done = api.rt.submit(stream,
                                  [work = std::move(work), resets = std::move(resets)] {
                                    for (const auto &c : resets) c->value = c->initial;
                                    for (const std::function<void()> &w : work) w();
                                  },
                                  std::move(after), {cudaGraphNodeTypeGraph, "graph launch"});
  for (EventState *e : recorded) e->point = done;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return cudaGraphLaunch(exec, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return cudaGraphUpload(exec, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int) {
  Api api("cudaGraphDebugDotPrint");
  CUgraph_st *found = findGraph(api.rt, graph);
  if (!path || !found) return api(cudaErrorInvalidValue);
  std::ofstream out(path);
  if (!out) return api(cudaErrorOperatingSystem);
  out << "digraph cuda_graph {\n";
  writeDot(out, *found, "");
  out << "}\n";
  return out ? cudaSuccess : api(cudaErrorOperatingSystem);
}

// ---- Stream capture ---------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  Api api("cudaStreamBeginCapture");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return api(cudaErrorInvalidValue);
  // The legacy default stream cannot be captured.
  if (api.rt.queueOf(stream)->kind() == Queue::Kind::Legacy) return api(cudaErrorStreamCaptureUnsupported);
  if (api.rt.captureOf(stream)) return api(cudaErrorIllegalState);
  auto sequence = std::make_shared<CaptureSequence>();
  sequence->mode = mode;
  sequence->thread = std::this_thread::get_id();
  sequence->id = api.rt.nextCaptureId++;
  sequence->origin = api.rt.queueOf(stream).get();
  api.rt.captures[api.rt.queueOf(stream).get()] = {std::move(sequence), {}};
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  Api api("cudaStreamEndCapture");
  if (!pGraph) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  StreamCapture *c = api.rt.captureOf(stream);
  if (!c) return api(cudaErrorIllegalState);
  std::shared_ptr<CaptureSequence> sequence = c->sequence;
  if (sequence->origin != api.rt.queueOf(stream).get()) return api(cudaErrorStreamCaptureUnmatched);
  if (sequence->mode == cudaStreamCaptureModeThreadLocal && sequence->thread != std::this_thread::get_id())
    return api(cudaErrorStreamCaptureWrongThread);
  // Every stream that joined must have been joined back: its last work is
  // an ancestor of the origin's.
  const std::vector<CUgraphNode_st *> &origin = c->frontier;
  bool unjoined = false;
  for (const auto &[queue, other] : api.rt.captures) {
    if (other.sequence != sequence || &other == c) continue;
    for (const CUgraphNode_st *n : other.frontier)
      unjoined |= std::none_of(origin.begin(), origin.end(),
                               [&](const CUgraphNode_st *o) { return CUgraph_st::reaches(o, n); });
  }
  if (unjoined) {
    endSequence(api.rt, sequence.get());
    *pGraph = nullptr;
    return api(cudaErrorStreamCaptureUnjoined);
  }
  endSequence(api.rt, sequence.get());
  if (sequence->invalidated) {
    *pGraph = nullptr;
    return api(cudaErrorStreamCaptureInvalidated);
  }
  *pGraph = sequence->graph.get();
  api.rt.graphs.emplace(sequence->graph.get(), std::move(sequence->graph));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *deps,
                                                              const cudaGraphEdgeData *edgeData, size_t n,
                                                              unsigned int flags) {
  Api api("cudaStreamUpdateCaptureDependencies");
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  StreamCapture *c = api.rt.captureOf(stream);
  if (!c) return api(cudaErrorIllegalState);
  if (flags > cudaStreamSetCaptureDependencies || (n && !deps)) return api(cudaErrorInvalidValue);
  if (!plainEdges(edgeData, n))
    return api(api.rt.unsupported("programmatic graph edges (cudaGraphEdgeData)"));
  // Nodes of this capture's graph only.
  for (size_t i = 0; i < n; ++i)
    if (!deps[i] || !c->sequence->graph->owns(deps[i])) return api(cudaErrorInvalidValue);
  if (flags == cudaStreamSetCaptureDependencies) c->frontier.clear();
  for (size_t i = 0; i < n; ++i)
    if (std::find(c->frontier.begin(), c->frontier.end(), deps[i]) == c->frontier.end())
      c->frontier.push_back(deps[i]);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t *deps,
                                                                   const cudaGraphEdgeData *edgeData,
                                                                   size_t n, unsigned int flags) {
  return cudaStreamUpdateCaptureDependencies(perThreadDefault(stream), deps, edgeData, n, flags);
}

CUDART_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return cudaStreamBeginCapture(perThreadDefault(stream), mode);
}

CUDART_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
  return cudaStreamEndCapture(perThreadDefault(stream), pGraph);
}
