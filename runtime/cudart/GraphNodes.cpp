// Graph nodes made from cudaGraphNodeParams (cudaGraphAddNode and the generic setters), kernel
// nodes' launch attributes, and conditional nodes: handles whose values device code sets
// (cudaGraphSetConditional, served by DeviceServices), if/else, while and switch nodes whose body graphs run
// as the handle's value says when a launch reaches them.
#include "runtime/cudart/Runtime.h"

#include <algorithm>

using namespace cudart;

namespace cudart {

bool CUgraph_st::hasConditional() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const auto &n) {
    return n->type == cudaGraphNodeTypeConditional || (n->child && n->child->hasConditional());
  });
}

void conditionsOf(const CUgraph_st &graph, std::vector<std::shared_ptr<ConditionalHandle>> &out) {
  for (const auto &n : graph.nodes) {
    if (n->condition && std::find(out.begin(), out.end(), n->condition) == out.end())
      out.push_back(n->condition);
    if (n->child) conditionsOf(*n->child, out);
    for (const auto &body : n->bodies) conditionsOf(*body, out);
  }
}

bool conditionalStep(Runtime &rt, const CUgraphNode_st &node, CUgraphExec_st::Step &step) {
  using Steps = std::vector<CUgraphExec_st::Step>;
  auto bodies = std::make_shared<std::vector<Steps>>(node.bodies.size());
  for (size_t i = 0; i < node.bodies.size(); ++i)
    if (!flatten(rt, *node.bodies[i], (*bodies)[i])) return false;
  const cudaGraphConditionalNodeType type = node.params.conditional.type;
  step.work = [&rt, type, bodies, condition = node.condition] {
    // Bodies hold kernels, copies, fills, empty nodes and conditional nodes (as CUDA allows),
    // all of which are work; a kernel that faulted ends the loop (its later work does nothing).
    auto run = [&](const Steps &steps) {
      for (const CUgraphExec_st::Step &s : steps)
        if (s.enabled && s.work) s.work();
    };
    const unsigned value = condition->value.load();
    switch (type) {
    case cudaGraphCondTypeIf:
      if (value)
        run((*bodies)[0]);
      else if (bodies->size() == 2)
        run((*bodies)[1]);
      break;
    case cudaGraphCondTypeWhile:
      while (condition->value.load() && rt.fault() == cudaSuccess) run((*bodies)[0]);
      break;
    case cudaGraphCondTypeSwitch:
      if (value < bodies->size()) run((*bodies)[value]);
      break;
    }
  };
  return true;
}

cudaError_t makeConditionalNode(Runtime &rt, cudaConditionalNodeParams *p, CUgraphNode_st &out) {
  if (!p) return cudaErrorInvalidValue;
  std::shared_ptr<ConditionalHandle> condition = rt.services.conditional(p->handle);
  if (!condition) return cudaErrorInvalidValue;
  const bool sized = p->type == cudaGraphCondTypeIf       ? p->size == 1 || p->size == 2
                     : p->type == cudaGraphCondTypeWhile  ? p->size == 1
                     : p->type == cudaGraphCondTypeSwitch ? p->size >= 1
                                                          : false;
  if (!sized) return cudaErrorInvalidValue;
  out.condition = std::move(condition);
  for (unsigned i = 0; i < p->size; ++i) {
    out.bodies.push_back(std::make_unique<CUgraph_st>());
    out.bodyHandles.push_back(out.bodies.back().get());
  }
  p->phGraph_out = out.bodyHandles.data(); // the node keeps the array (a vector moves its buffer)
  out.params.conditional = *p;
  static const char *const kKinds[] = {"if", "while", "switch"};
  out.label = std::string(kKinds[p->type]) + " on handle " + std::to_string(p->handle & 0xFFFFFFFF);
  return cudaSuccess;
}

cudaError_t makeNode(Runtime &rt, cudaGraphNodeParams *p, CUgraphNode_st &out) {
  if (!p) return cudaErrorInvalidValue;
  switch (p->type) {
  case cudaGraphNodeTypeKernel: return makeKernelNode(rt, &p->kernel, out);
  case cudaGraphNodeTypeMemcpy:
    if (p->memcpy.flags != 0) return cudaErrorInvalidValue; // "must be zero"
    return makeCopyNode(rt, &p->memcpy.copyParams, out);
  case cudaGraphNodeTypeMemset: return makeFillNode(rt, &p->memset, out);
  case cudaGraphNodeTypeHost: return makeHostNode(rt, &p->host, out);
  case cudaGraphNodeTypeGraph:
    if (p->graph.ownership == cudaGraphChildGraphOwnershipMove) {
      // The graph itself becomes the node's: only a graph of its own (not a child, not moved).
      auto it = rt.graphs.find(p->graph.graph);
      if (it == rt.graphs.end()) {
        CUgraph_st *g = findGraph(rt, p->graph.graph);
        return g && g->moved ? cudaErrorNotSupported : cudaErrorInvalidValue; // moved once already
      }
      out.child = std::move(it->second);
      out.child->moved = true;
      rt.graphs.erase(it);
      return cudaSuccess;
    }
    if (p->graph.ownership != cudaGraphChildGraphOwnershipClone) return cudaErrorInvalidValue;
    if (cudaError_t e = makeChildNode(rt, p->graph.graph, out)) return e;
    p->graph.graph = out.child.get(); // the node's own graph, as CUDA hands it back
    return cudaSuccess;
  case cudaGraphNodeTypeEmpty: return cudaSuccess;
  case cudaGraphNodeTypeWaitEvent: return makeEventNode(rt, p->eventWait.event, out);
  case cudaGraphNodeTypeEventRecord: return makeEventNode(rt, p->eventRecord.event, out);
  case cudaGraphNodeTypeMemAlloc: return makeAllocNode(rt, &p->alloc, out);
  case cudaGraphNodeTypeMemFree: return makeFreeNode(rt, p->free.dptr, out);
  case cudaGraphNodeTypeConditional: return makeConditionalNode(rt, &p->conditional, out);
  case cudaGraphNodeTypeExtSemaphoreSignal:
  case cudaGraphNodeTypeExtSemaphoreWait: return rt.unsupported("external semaphore graph nodes");
  }
  return cudaErrorInvalidValue;
}

} // namespace cudart

CUDART_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                           cudaGraph_t graph, unsigned int defaultLaunchValue,
                                                           unsigned int flags) {
  Api api("cudaGraphConditionalHandleCreate");
  if (api.blocked()) return api.sticky();
  CUgraph_st *found = findGraph(api.rt, graph);
  if (!pHandle_out || !found || (flags & ~unsigned{cudaGraphCondAssignDefault}))
    return api(cudaErrorInvalidValue);
  *pHandle_out =
      api.rt.services.createConditional(found, defaultLaunchValue, (flags & cudaGraphCondAssignDefault) != 0);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                           cudaGraphNodeParams *nodeParams) {
  if (!plainEdges(dependencyData, numDependencies)) {
    Api api("cudaGraphAddNode");
    return api(api.rt.unsupported("programmatic graph edges (cudaGraphEdgeData)"));
  }
  const cudaGraphNodeType type = nodeParams ? nodeParams->type : cudaGraphNodeTypeEmpty;
  if (type == cudaGraphNodeTypeGraph && nodeParams->graph.ownership == cudaGraphChildGraphOwnershipMove) {
    // A graph moved into itself, or into a graph inside it, would own itself.
    Api api("cudaGraphAddNode");
    CUgraph_st *target = findGraph(api.rt, graph), *moving = findGraph(api.rt, nodeParams->graph.graph);
    if (target && moving && (target == moving || contains(*moving, target)))
      return api(cudaErrorInvalidValue);
  }
  return addGraphNode(
      "cudaGraphAddNode", pGraphNode, graph, pDependencies, numDependencies, type,
      [nodeParams](Runtime &rt, CUgraphNode_st &out) { return makeNode(rt, nodeParams, out); });
}

namespace {
/// Whether cudaGraphNodeSetParams and cudaGraphExecNodeSetParams change nodes of this kind (as
/// CUDA 13 documents: not allocations, frees or conditional nodes, whose memory and bodies are
/// fixed when they are made).
bool settable(cudaGraphNodeType type) {
  return type != cudaGraphNodeTypeMemAlloc && type != cudaGraphNodeTypeMemFree &&
         type != cudaGraphNodeTypeConditional;
}

/// What both generic setters make for `node`: a node of its kind from `p`, its attributes kept.
cudaError_t remake(Runtime &rt, const CUgraphNode_st &node, cudaGraphNodeParams *p, CUgraphNode_st &made) {
  if (!settable(node.type)) return cudaErrorNotSupported;
  made.type = node.type;
  made.attributes = node.attributes;
  return makeNode(rt, p, made);
}
} // namespace

CUDART_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams *nodeParams) {
  Api api("cudaGraphNodeSetParams");
  if (api.blocked()) return api.sticky();
  if (!node || !nodeParams || !node->graph || !findGraph(api.rt, node->graph) ||
      node->type != nodeParams->type)
    return api(cudaErrorInvalidValue);
  CUgraphNode_st made;
  if (cudaError_t e = remake(api.rt, *node, nodeParams, made)) return api(e);
  node->takeWork(std::move(made));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                     cudaGraphNodeParams *nodeParams) {
  Api api("cudaGraphExecNodeSetParams");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.graphExecs.find(graphExec);
  if (it == api.rt.graphExecs.end() || !node || !nodeParams || node->type != nodeParams->type)
    return api(cudaErrorInvalidValue);
  CUgraphNode_st made;
  if (cudaError_t e = remake(api.rt, *node, nodeParams, made)) return api(e);
  // A child graph node's steps are its graph's, flattened; any other node is one step of the
  // instantiated graph.
  if (made.child) {
    if (cudaError_t e = setChildSteps(api.rt, *it->second, node, *made.child)) return api(e);
    return cudaSuccess;
  }
  auto &steps = it->second->steps;
  auto step = std::find_if(steps.begin(), steps.end(),
                           [&](const auto &s) { return s.node == node && s.top == node; });
  if (step == steps.end()) return api(cudaErrorInvalidValue);
  step->work = std::move(made.work);
  step->event = made.event;
  return cudaSuccess;
}

// ---- Kernel node attributes ---------------------------------------------------------------------

namespace {

/// The launch attributes a kernel node keeps (CUDA 13's list for graph kernel nodes; the
/// stream-only ones and programmatic launches are refused).
bool kernelNodeAttribute(cudaLaunchAttributeID id) {
  switch (id) {
  case cudaLaunchAttributeAccessPolicyWindow:
  case cudaLaunchAttributeCooperative:
  case cudaLaunchAttributeClusterDimension:
  case cudaLaunchAttributeClusterSchedulingPolicyPreference:
  case cudaLaunchAttributePriority:
  case cudaLaunchAttributeMemSyncDomainMap:
  case cudaLaunchAttributeMemSyncDomain:
  case cudaLaunchAttributePreferredClusterDimension:
  case cudaLaunchAttributePreferredSharedMemoryCarveout:
  case cudaLaunchAttributeDeviceUpdatableKernelNode: return true;
  default: return false;
  }
}

/// Makes a kernel node's work again from its kept parameters, under its current attributes.
cudaError_t remakeKernel(Runtime &rt, CUgraphNode_st &node) {
  const NodeParams &kept = node.params;
  std::vector<void *> arguments;
  for (size_t offset : kept.argumentOffsets)
    arguments.push_back(const_cast<uint8_t *>(kept.arguments.data()) + offset);
  cudaKernelNodeParams p = kept.kernel;
  p.kernelParams = arguments.empty() ? nullptr : arguments.data();
  p.extra = nullptr;
  CUgraphNode_st made;
  made.type = cudaGraphNodeTypeKernel;
  made.attributes = node.attributes;
  if (cudaError_t e = makeKernelNode(rt, &p, made)) return e;
  node.takeWork(std::move(made));
  return cudaSuccess;
}

bool liveKernelNode(Runtime &rt, cudaGraphNode_t node) {
  return node && node->type == cudaGraphNodeTypeKernel && node->graph && findGraph(rt, node->graph);
}

} // namespace

CUDART_EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaLaunchAttributeID attr,
                                                          const cudaLaunchAttributeValue *value) {
  Api api("cudaGraphKernelNodeSetAttribute");
  if (api.blocked()) return api.sticky();
  if (!liveKernelNode(api.rt, node) || !value) return api(cudaErrorInvalidValue);
  if (!kernelNodeAttribute(attr)) return api(cudaErrorInvalidValue);
  if (attr == cudaLaunchAttributeDeviceUpdatableKernelNode &&
      (value->deviceUpdatableKernelNode.deviceUpdatable & ~1) != 0) // only 0 or 1
    return api(cudaErrorInvalidValue);
  // A shape or mode the kernel cannot launch with leaves the node as it was.
  const std::map<int, cudaLaunchAttributeValue> before = node->attributes;
  cudaLaunchAttributeValue &kept = node->attributes[attr];
  kept = *value;
  // Priorities are clamped into the device's range (cudaDeviceGetStreamPriorityRange: -5 to 0),
  // as an H200 reads them back.
  if (attr == cudaLaunchAttributePriority) kept.priority = std::clamp(kept.priority, -5, 0);
  // A device-updatable node keeps its handle (cudaGraphKernelNodeGetAttribute hands it out).
  if (attr == cudaLaunchAttributeDeviceUpdatableKernelNode) {
    auto was = before.find(attr);
    unsigned long long &handle = kept.deviceUpdatableKernelNode.devNode;
    handle = was != before.end() ? was->second.deviceUpdatableKernelNode.devNode : 0;
    if (!handle && kept.deviceUpdatableKernelNode.deviceUpdatable)
      handle = api.rt.services.createDeviceNode();
  }
  if (cudaError_t e = remakeKernel(api.rt, *node)) {
    node->attributes = before;
    return api(e);
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaLaunchAttributeID attr,
                                                          cudaLaunchAttributeValue *value) {
  Api api("cudaGraphKernelNodeGetAttribute");
  if (!liveKernelNode(api.rt, node) || !value || !kernelNodeAttribute(attr))
    return api(cudaErrorInvalidValue);
  auto it = node->attributes.find(attr);
  *value = it == node->attributes.end() ? cudaLaunchAttributeValue{} : it->second;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
  Api api("cudaGraphKernelNodeCopyAttributes");
  if (api.blocked()) return api.sticky();
  if (!liveKernelNode(api.rt, dst) || !liveKernelNode(api.rt, src)) return api(cudaErrorInvalidValue);
  const std::map<int, cudaLaunchAttributeValue> before = dst->attributes;
  dst->attributes = src->attributes;
  if (cudaError_t e = remakeKernel(api.rt, *dst)) {
    dst->attributes = before;
    return api(e);
  }
  return cudaSuccess;
}
