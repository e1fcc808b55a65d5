// Stream capture entry points: cuStreamBeginCapture (every form), cuStreamEndCapture,
// cuStreamIsCapturing, cuStreamGetCaptureInfo (v1 to v3), cuStreamUpdateCaptureDependencies and
// cuThreadExchangeStreamCaptureMode. The rules themselves live in capture.cpp.
#include "emulator/driver/capture.hpp"
#include "emulator/driver/graph.hpp"

#include <algorithm>

using namespace cfr::driver;

namespace {

CUresult stream_of(CUstream h, StreamRef* out) {
    if (CUresult r = check_init()) return r;
    return resolve_stream(h, out);
}

CUresult begin(CUstream hStream, CUstreamCaptureMode mode) {
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    return begin_capture(s, mode, nullptr, {});
}

CUresult begin_to_graph(CUstream hStream, CUgraph hGraph, const CUgraphNode* dependencies,
                        const CUgraphEdgeData* edges, size_t count, CUstreamCaptureMode mode) {
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    Graph* graph = nullptr;
    if (CUresult r = resolve(hGraph, &graph, CUDA_ERROR_INVALID_VALUE)) return r;
    if (count && !dependencies) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; edges && i < count; ++i)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
            edges[i].to_port)
            return not_supported("graph edges with data in a stream capture");
    std::vector<uint64_t> deps;
    for (size_t i = 0; i < count; ++i)
        deps.push_back(reinterpret_cast<uint64_t>(dependencies[i]));
    return begin_capture(s, mode, graph, deps);
}

CUresult status_of(CUstream hStream, CUstreamCaptureStatus* status, Capture** capture) {
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!status) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = capture_of(s, capture)) return r;
    *status = !*capture                 ? CU_STREAM_CAPTURE_STATUS_NONE
              : (*capture)->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                        : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return CUDA_SUCCESS;
}

CUresult capture_info(CUstream hStream, CUstreamCaptureStatus* status, cuuint64_t* id,
                      CUgraph* graph, const CUgraphNode** dependencies,
                      const CUgraphEdgeData** edges, size_t* count) {
    if (edges && !dependencies) return CUDA_ERROR_INVALID_VALUE;
    Capture* c = nullptr;
    if (CUresult r = status_of(hStream, status, &c)) return r;
    if (*status != CU_STREAM_CAPTURE_STATUS_ACTIVE) return CUDA_SUCCESS;
    StreamRef s;
    resolve_stream(hStream, &s);
    const std::vector<uint64_t>& tail = s.stream->capture_tail;
    if (id) *id = c->id;
    if (graph) *graph = reinterpret_cast<CUgraph>(c->graph);
    if (dependencies) *dependencies = reinterpret_cast<const CUgraphNode*>(tail.data());
    if (edges) {
        thread_local std::vector<CUgraphEdgeData> none;
        none.assign(tail.size(), CUgraphEdgeData{});
        *edges = none.data();
    }
    if (count) *count = tail.size();
    return CUDA_SUCCESS;
}

CUresult update_dependencies(CUstream hStream, CUgraphNode* dependencies,
                             const CUgraphEdgeData* edges, size_t count, unsigned flags) {
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES || (count && !dependencies))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; edges && i < count; ++i)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
            edges[i].to_port)
            return not_supported("graph edges with data in a stream capture");
    if (s.legacy() || !s.stream->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::Stream, s.handle(), "is not capturing",
                         s.legacy() ? nullptr : registry().find({Space::Handle, s.stream->handle}));
    Capture& c = *s.stream->capture;
    if (c.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    Graph* graph = find_live<Graph>(c.graph);
    std::vector<uint64_t>& tail = s.stream->capture_tail;
    if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES) tail.clear();
    for (size_t i = 0; i < count; ++i) {
        GraphNode* node = nullptr;
        if (CUresult r = graph_node(dependencies[i], graph, &node)) return r;
        if (std::find(tail.begin(), tail.end(), node->handle) == tail.end())
            tail.push_back(node->handle);
    }
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuStreamBeginCapture(CUstream hStream) {
    CFR_API();
    return begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}
CFR_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}
CFR_EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
    CFR_API();
    return begin(hStream, mode);
}
CFR_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return begin(hStream, mode);
}

CFR_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
                                                const CUgraphNode* dependencies,
                                                const CUgraphEdgeData* dependencyData,
                                                size_t numDependencies, CUstreamCaptureMode mode) {
    CFR_API();
    return begin_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode);
}
CFR_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
                                                     const CUgraphNode* dependencies,
                                                     const CUgraphEdgeData* dependencyData,
                                                     size_t numDependencies,
                                                     CUstreamCaptureMode mode) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return begin_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode);
}

CFR_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    return end_capture(s, phGraph);
}
CFR_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph* phGraph) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamEndCapture(hStream, phGraph);
}

CFR_EXPORT CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
    CFR_API();
    Capture* c = nullptr;
    return status_of(hStream, captureStatus, &c);
}
CFR_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream,
                                             CUstreamCaptureStatus* captureStatus) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamIsCapturing(hStream, captureStatus);
}

CFR_EXPORT CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* captureStatus,
                                           cuuint64_t* id) {
    CFR_API();
    return capture_info(hStream, captureStatus, id, nullptr, nullptr, nullptr, nullptr);
}
CFR_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus* captureStatus,
                                                cuuint64_t* id) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return capture_info(hStream, captureStatus, id, nullptr, nullptr, nullptr, nullptr);
}
CFR_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream,
                                              CUstreamCaptureStatus* captureStatus_out,
                                              cuuint64_t* id_out, CUgraph* graph_out,
                                              const CUgraphNode** dependencies_out,
                                              size_t* numDependencies_out) {
    CFR_API();
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                        numDependencies_out);
}
CFR_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                   CUstreamCaptureStatus* captureStatus_out,
                                                   cuuint64_t* id_out, CUgraph* graph_out,
                                                   const CUgraphNode** dependencies_out,
                                                   size_t* numDependencies_out) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                        numDependencies_out);
}
CFR_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream,
                                              CUstreamCaptureStatus* captureStatus_out,
                                              cuuint64_t* id_out, CUgraph* graph_out,
                                              const CUgraphNode** dependencies_out,
                                              const CUgraphEdgeData** edgeData_out,
                                              size_t* numDependencies_out) {
    CFR_API();
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}
CFR_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                   CUstreamCaptureStatus* captureStatus_out,
                                                   cuuint64_t* id_out, CUgraph* graph_out,
                                                   const CUgraphNode** dependencies_out,
                                                   const CUgraphEdgeData** edgeData_out,
                                                   size_t* numDependencies_out) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}

CFR_EXPORT CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode* dependencies,
                                                      size_t numDependencies, unsigned int flags) {
    CFR_API();
    return update_dependencies(hStream, dependencies, nullptr, numDependencies, flags);
}
CFR_EXPORT CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream,
                                                           CUgraphNode* dependencies,
                                                           size_t numDependencies,
                                                           unsigned int flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return update_dependencies(hStream, dependencies, nullptr, numDependencies, flags);
}
CFR_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream,
                                                         CUgraphNode* dependencies,
                                                         const CUgraphEdgeData* dependencyData,
                                                         size_t numDependencies,
                                                         unsigned int flags) {
    CFR_API();
    return update_dependencies(hStream, dependencies, dependencyData, numDependencies, flags);
}
CFR_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
                                                              CUgraphNode* dependencies,
                                                              const CUgraphEdgeData* dependencyData,
                                                              size_t numDependencies,
                                                              unsigned int flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return update_dependencies(hStream, dependencies, dependencyData, numDependencies, flags);
}

CFR_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
    std::swap(*mode, thread_capture_mode());
    return CUDA_SUCCESS;
}
