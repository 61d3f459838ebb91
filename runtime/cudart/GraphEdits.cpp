// Editing CUDA graphs and their instantiations: explicit edges (add, remove, list), node
// removal, each node kind's parameters read back and set again, the same for an instantiated
// graph's nodes (and enabling or disabling them), and cudaGraphExecUpdate, which takes a whole
// graph of the same topology into an instantiation. A setter makes the node's work afresh with
// the checks cudaGraphAdd*Node applies (Graph.h: make*Node), so a bad parameter is refused
// with the same error and leaves the node as it was.
#include "runtime/cudart/Runtime.h"

#include <algorithm>
#include <cstring>

using namespace cudart;

namespace {

/// Writes `found` entries (pairs when `second` is given) the way CUDA's list calls do: without an
/// array, *count becomes how many there are; with one, up to *count are written and *count
/// becomes how many were, when fewer.
template <class List>
cudaError_t writeList(const List &found, cudaGraphNode_t *first, cudaGraphNode_t *second,
                      cudaGraphEdgeData *edgeData, size_t *count) {
  if (!count) return cudaErrorInvalidValue;
  if (!first) {
    *count = found.size();
    return cudaSuccess;
  }
  const size_t n = std::min(*count, found.size());
  for (size_t i = 0; i < n; ++i) {
    first[i] = found[i].first;
    if (second) second[i] = found[i].second;
    if (edgeData) edgeData[i] = {};
  }
  // Entries past the graph's edges are zeroed, as CUDA documents.
  for (size_t i = n; i < *count; ++i) {
    first[i] = nullptr;
    if (second) second[i] = nullptr;
    if (edgeData) edgeData[i] = {};
  }
  *count = n;
  return cudaSuccess;
}

/// The entry of a node setter: `node` must be a live node of kind `type`; `make` fills a fresh
/// node that replaces its work only when it succeeds.
template <class Make>
cudaError_t setNode(const char *name, cudaGraphNode_t node, cudaGraphNodeType type, Make make) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  if (!node || !node->graph || !findGraph(api.rt, node->graph) || node->type != type)
    return api(cudaErrorInvalidValue);
  CUgraphNode_st made;
  made.type = type;
  made.attributes = node->attributes;
  if (cudaError_t e = make(api.rt, made)) return api(e);
  node->takeWork(std::move(made));
  return cudaSuccess;
}

/// The entry of a getter: `node` must be of kind `type`.
template <class Get>
cudaError_t getNode(const char *name, cudaGraphNode_t node, cudaGraphNodeType type, Get get) {
  Api api(name);
  if (!node || node->type != type) return api(cudaErrorInvalidValue);
  return get(*node) ? cudaSuccess : api(cudaErrorInvalidValue);
}

/// A getter that copies one part of the node's kept parameters to `out`.
template <class T>
cudaError_t getParam(const char *name, cudaGraphNode_t node, cudaGraphNodeType type, T *out,
                     T NodeParams::*part) {
  return getNode(name, node, type, [&](CUgraphNode_st &n) {
    if (out) *out = n.params.*part;
    return out != nullptr;
  });
}

/// The entry of an instantiation's node setter: `node` must be a node of the graph `exec` was
/// instantiated from (not one inside a child graph) of kind `type`; its step takes the work
/// `make` makes.
template <class Make>
cudaError_t setExecNode(const char *name, cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type,
                        Make make) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  auto it = api.rt.graphExecs.find(exec);
  if (it == api.rt.graphExecs.end() || !node || node->type != type) return api(cudaErrorInvalidValue);
  auto &steps = it->second->steps;
  auto step = std::find_if(steps.begin(), steps.end(),
                           [&](const auto &s) { return s.node == node && s.top == node; });
  if (step == steps.end()) return api(cudaErrorInvalidValue);
  CUgraphNode_st made;
  made.type = type;
  made.attributes = node->attributes;
  if (cudaError_t e = make(api.rt, made)) return api(e);
  step->work = std::move(made.work);
  step->event = made.event;
  return cudaSuccess;
}

} // namespace

// ---- Edges and nodes ----------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                   const cudaGraphNode_t *to,
                                                   const cudaGraphEdgeData *edgeData, size_t n) {
  Api api("cudaGraphAddDependencies");
  CUgraph_st *g = findGraph(api.rt, graph);
  if (!g || (n && (!from || !to))) return api(cudaErrorInvalidValue);
  if (!plainEdges(edgeData, n))
    return api(api.rt.unsupported("programmatic graph edges (cudaGraphEdgeData)"));
  // All or nothing: every edge is checked before any is added.
  std::vector<std::pair<CUgraphNode_st *, CUgraphNode_st *>> edges;
  for (size_t i = 0; i < n; ++i) {
    if (!g->owns(from[i]) || !g->owns(to[i]) || from[i] == to[i]) return api(cudaErrorInvalidValue);
    const auto &deps = to[i]->dependencies;
    if (std::count(deps.begin(), deps.end(), from[i]) ||
        std::count(edges.begin(), edges.end(), std::pair(from[i], to[i])))
      return api(cudaErrorInvalidValue);
    edges.emplace_back(from[i], to[i]);
  }
  // An edge that closes a cycle is taken, as on a GPU (measured on an H200): the graph is
  // refused when instantiated (cudaErrorInvalidValue), with no order to run its nodes in.
  for (auto [f, t] : edges) t->dependencies.push_back(f);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                      const cudaGraphNode_t *to,
                                                      const cudaGraphEdgeData *edgeData, size_t n) {
  Api api("cudaGraphRemoveDependencies");
  CUgraph_st *g = findGraph(api.rt, graph);
  if (!g || (n && (!from || !to))) return api(cudaErrorInvalidValue);
  if (!plainEdges(edgeData, n))
    return api(api.rt.unsupported("programmatic graph edges (cudaGraphEdgeData)"));
  for (size_t i = 0; i < n; ++i) {
    if (!g->owns(from[i]) || !g->owns(to[i])) return api(cudaErrorInvalidValue);
    const auto &deps = to[i]->dependencies;
    if (!std::count(deps.begin(), deps.end(), from[i])) return api(cudaErrorInvalidValue);
  }
  for (size_t i = 0; i < n; ++i) std::erase(to[i]->dependencies, from[i]);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                            cudaGraphEdgeData *edgeData, size_t *numEdges) {
  Api api("cudaGraphGetEdges");
  CUgraph_st *g = findGraph(api.rt, graph);
  if (!g || (from != nullptr) != (to != nullptr)) return api(cudaErrorInvalidValue);
  std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> edges;
  for (const auto &n : g->nodes)
    for (CUgraphNode_st *d : n->dependencies) edges.emplace_back(d, n.get());
  if (cudaError_t e = writeList(edges, from, to, edgeData, numEdges)) return api(e);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps,
                                                       cudaGraphEdgeData *edgeData, size_t *count) {
  Api api("cudaGraphNodeGetDependencies");
  if (!node) return api(cudaErrorInvalidValue);
  std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> found;
  for (CUgraphNode_st *d : node->dependencies) found.emplace_back(d, nullptr);
  if (cudaError_t e = writeList(found, deps, nullptr, edgeData, count)) return api(e);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *dependents,
                                                         cudaGraphEdgeData *edgeData, size_t *count) {
  Api api("cudaGraphNodeGetDependentNodes");
  if (!node || !node->graph) return api(cudaErrorInvalidValue);
  std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> found;
  for (const auto &n : node->graph->nodes)
    if (std::count(n->dependencies.begin(), n->dependencies.end(), node))
      found.emplace_back(n.get(), nullptr);
  if (cudaError_t e = writeList(found, dependents, nullptr, edgeData, count)) return api(e);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  Api api("cudaGraphDestroyNode");
  if (!node || !node->graph || !node->graph->owns(node)) return api(cudaErrorInvalidValue);
  CUgraph_st &g = *node->graph;
  for (const auto &n : g.nodes) std::erase(n->dependencies, node);
  std::erase_if(g.nodes, [&](const auto &n) { return n.get() == node; });
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t original,
                                                   cudaGraph_t clone) {
  Api api("cudaGraphNodeFindInClone");
  CUgraph_st *c = findGraph(api.rt, clone);
  if (!pNode || !original || !c || !original->graph || c->clonedFrom != original->graph)
    return api(cudaErrorInvalidValue);
  // A clone holds the original's nodes in the same order; nodes added to either since break
  // the correspondence, which the types guard.
  const auto &nodes = original->graph->nodes;
  auto at = std::find_if(nodes.begin(), nodes.end(), [&](const auto &n) { return n.get() == original; });
  size_t index = static_cast<size_t>(at - nodes.begin());
  if (at == nodes.end() || index >= c->nodes.size() || c->nodes[index]->type != original->type)
    return api(cudaErrorInvalidValue);
  *pNode = c->nodes[index].get();
  return cudaSuccess;
}

// ---- Node parameters ----------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  return getNode("cudaGraphKernelNodeGetParams", node, cudaGraphNodeTypeKernel, [p](CUgraphNode_st &n) {
    if (!p) return false;
    // kernelParams points into the node's copy of the arguments, valid while the node is.
    NodeParams &kept = n.params;
    kept.argumentPointers.clear();
    for (size_t offset : kept.argumentOffsets)
      kept.argumentPointers.push_back(kept.arguments.data() + offset);
    *p = kept.kernel;
    p->kernelParams = kept.argumentPointers.empty() ? nullptr : kept.argumentPointers.data();
    p->extra = nullptr;
    return true;
  });
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams *p) {
  return setNode("cudaGraphKernelNodeSetParams", node, cudaGraphNodeTypeKernel,
                 [p](Runtime &rt, CUgraphNode_st &made) { return makeKernelNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms *p) {
  return getParam("cudaGraphMemcpyNodeGetParams", node, cudaGraphNodeTypeMemcpy, p, &NodeParams::copy);
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms *p) {
  return setNode("cudaGraphMemcpyNodeSetParams", node, cudaGraphNodeTypeMemcpy,
                 [p](Runtime &rt, CUgraphNode_st &made) { return makeCopyNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                                         size_t count, cudaMemcpyKind kind) {
  return setNode(
      "cudaGraphMemcpyNodeSetParams1D", node, cudaGraphNodeTypeMemcpy,
      [&](Runtime &rt, CUgraphNode_st &made) { return makeCopyNode1D(rt, dst, src, count, kind, made); });
}

CUDART_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams *p) {
  return getParam("cudaGraphMemsetNodeGetParams", node, cudaGraphNodeTypeMemset, p, &NodeParams::fill);
}

CUDART_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p) {
  return setNode("cudaGraphMemsetNodeSetParams", node, cudaGraphNodeTypeMemset,
                 [p](Runtime &rt, CUgraphNode_st &made) { return makeFillNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams *p) {
  return getParam("cudaGraphHostNodeGetParams", node, cudaGraphNodeTypeHost, p, &NodeParams::host);
}

CUDART_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p) {
  return setNode("cudaGraphHostNodeSetParams", node, cudaGraphNodeTypeHost,
                 [p](Runtime &rt, CUgraphNode_st &made) { return makeHostNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams *p) {
  return getParam("cudaGraphMemAllocNodeGetParams", node, cudaGraphNodeTypeMemAlloc, p,
                  &NodeParams::allocation);
}

CUDART_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr) {
  return getParam("cudaGraphMemFreeNodeGetParams", node, cudaGraphNodeTypeMemFree, static_cast<void **>(dptr),
                  &NodeParams::freed);
}

CUDART_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
  return getNode("cudaGraphChildGraphNodeGetGraph", node, cudaGraphNodeTypeGraph,
                 [pGraph](CUgraphNode_st &n) {
                   if (pGraph) *pGraph = n.child.get(); // the node's own graph: edits to it change the node
                   return pGraph != nullptr;
                 });
}

namespace {
template <cudaGraphNodeType kType>
cudaError_t getEvent(const char *name, cudaGraphNode_t node, cudaEvent_t *out) {
  return getNode(name, node, kType, [out](CUgraphNode_st &n) {
    if (out) *out = n.event;
    return out != nullptr;
  });
}
template <cudaGraphNodeType kType>
cudaError_t setEvent(const char *name, cudaGraphNode_t node, cudaEvent_t event) {
  return setNode(name, node, kType,
                 [event](Runtime &rt, CUgraphNode_st &made) { return makeEventNode(rt, event, made); });
}
} // namespace

CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event) {
  return getEvent<cudaGraphNodeTypeEventRecord>("cudaGraphEventRecordNodeGetEvent", node, event);
}
CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return setEvent<cudaGraphNodeTypeEventRecord>("cudaGraphEventRecordNodeSetEvent", node, event);
}
CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event) {
  return getEvent<cudaGraphNodeTypeWaitEvent>("cudaGraphEventWaitNodeGetEvent", node, event);
}
CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return setEvent<cudaGraphNodeTypeWaitEvent>("cudaGraphEventWaitNodeSetEvent", node, event);
}

// ---- Instantiated graphs ------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaKernelNodeParams *p) {
  return setExecNode("cudaGraphExecKernelNodeSetParams", exec, node, cudaGraphNodeTypeKernel,
                     [p](Runtime &rt, CUgraphNode_st &made) { return makeKernelNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaMemcpy3DParms *p) {
  return setExecNode("cudaGraphExecMemcpyNodeSetParams", exec, node, cudaGraphNodeTypeMemcpy,
                     [p](Runtime &rt, CUgraphNode_st &made) { return makeCopyNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                             void *dst, const void *src, size_t count,
                                                             cudaMemcpyKind kind) {
  return setExecNode(
      "cudaGraphExecMemcpyNodeSetParams1D", exec, node, cudaGraphNodeTypeMemcpy,
      [&](Runtime &rt, CUgraphNode_st &made) { return makeCopyNode1D(rt, dst, src, count, kind, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaMemsetParams *p) {
  return setExecNode("cudaGraphExecMemsetNodeSetParams", exec, node, cudaGraphNodeTypeMemset,
                     [p](Runtime &rt, CUgraphNode_st &made) { return makeFillNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                         const cudaHostNodeParams *p) {
  return setExecNode("cudaGraphExecHostNodeSetParams", exec, node, cudaGraphNodeTypeHost,
                     [p](Runtime &rt, CUgraphNode_st &made) { return makeHostNode(rt, p, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                               cudaEvent_t event) {
  return setExecNode("cudaGraphExecEventRecordNodeSetEvent", exec, node, cudaGraphNodeTypeEventRecord,
                     [event](Runtime &rt, CUgraphNode_st &made) { return makeEventNode(rt, event, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                             cudaEvent_t event) {
  return setExecNode("cudaGraphExecEventWaitNodeSetEvent", exec, node, cudaGraphNodeTypeWaitEvent,
                     [event](Runtime &rt, CUgraphNode_st &made) { return makeEventNode(rt, event, made); });
}

CUDART_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                               cudaGraph_t child) {
  Api api("cudaGraphExecChildGraphNodeSetParams");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.graphExecs.find(exec);
  CUgraph_st *g = findGraph(api.rt, child);
  if (it == api.rt.graphExecs.end() || !node || node->type != cudaGraphNodeTypeGraph || !node->child || !g)
    return api(cudaErrorInvalidValue);
  if (cudaError_t e = setChildSteps(api.rt, *it->second, node, *g)) return api(e);
  return cudaSuccess;
}

namespace cudart {
cudaError_t setChildSteps(Runtime &rt, CUgraphExec_st &exec, const CUgraphNode_st *node,
                          const CUgraph_st &child) {
  // The child's steps take the new graph's work, which must have the same topology.
  std::vector<CUgraphExec_st::Step> fresh;
  if (!node->child || topologyOf(child) != topologyOf(*node->child) || !flatten(rt, child, fresh, node))
    return cudaErrorInvalidValue;
  size_t k = 0;
  for (CUgraphExec_st::Step &s : exec.steps)
    if (s.top == node) {
      if (k >= fresh.size()) return cudaErrorInvalidValue; // instantiated from another graph
      s.work = fresh[k].work;
      s.event = fresh[k].event;
      ++k;
    }
  return k == fresh.size() ? cudaSuccess : cudaErrorInvalidValue;
}
} // namespace cudart

CUDART_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                  unsigned int enabled) {
  Api api("cudaGraphNodeSetEnabled");
  auto it = api.rt.graphExecs.find(exec);
  // Kernel, copy and fill nodes can be turned off; other kinds cannot.
  if (it == api.rt.graphExecs.end() || !node ||
      (node->type != cudaGraphNodeTypeKernel && node->type != cudaGraphNodeTypeMemcpy &&
       node->type != cudaGraphNodeTypeMemset))
    return api(cudaErrorInvalidValue);
  bool found = false;
  for (CUgraphExec_st::Step &s : it->second->steps)
    if (s.node == node && s.top == node) s.enabled = enabled != 0, found = true;
  return found ? cudaSuccess : api(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                  unsigned int *enabled) {
  Api api("cudaGraphNodeGetEnabled");
  auto it = api.rt.graphExecs.find(exec);
  if (it == api.rt.graphExecs.end() || !node || !enabled) return api(cudaErrorInvalidValue);
  for (const CUgraphExec_st::Step &s : it->second->steps)
    if (s.node == node && s.top == node) {
      *enabled = s.enabled;
      return cudaSuccess;
    }
  return api(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long *flags) {
  Api api("cudaGraphExecGetFlags");
  auto it = api.rt.graphExecs.find(exec);
  if (it == api.rt.graphExecs.end() || !flags) return api(cudaErrorInvalidValue);
  *flags = it->second->flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                              cudaGraphExecUpdateResultInfo *info) {
  Api api("cudaGraphExecUpdate");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.graphExecs.find(exec);
  CUgraph_st *g = findGraph(api.rt, graph);
  if (it == api.rt.graphExecs.end() || !g || g->moved || !info) return api(cudaErrorInvalidValue);
  *info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  CUgraphExec_st &x = *it->second;
  std::vector<CUgraphExec_st::Step> fresh;
  const bool ordered = flatten(api.rt, *g, fresh);
  if (!ordered || topologyOf(*g) != x.topology || fresh.size() != x.steps.size()) {
    // Which kind of change, as a GPU reports it: a node of another kind, or other edges.
    info->result = cudaGraphExecUpdateErrorTopologyChanged;
    for (size_t i = 0; i < fresh.size() && i < x.steps.size(); ++i)
      if (fresh[i].type != x.steps[i].type) {
        info->result = cudaGraphExecUpdateErrorNodeTypeChanged;
        info->errorNode = const_cast<CUgraphNode_st *>(fresh[i].top);
        break;
      }
    return api(cudaErrorGraphExecUpdateFailure);
  }
  // The same topology flattens in the same order: each step takes its counterpart's work and
  // keeps its identity (the instantiated graph's node) and whether it is enabled.
  for (size_t i = 0; i < fresh.size(); ++i) {
    x.steps[i].work = std::move(fresh[i].work);
    x.steps[i].event = fresh[i].event;
  }
  x.conditions.clear();
  conditionsOf(*g, x.conditions);
  return cudaSuccess;
}
