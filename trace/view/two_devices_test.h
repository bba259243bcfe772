// trace/view/two_devices_test.h: for the view tests, a timeline of a run on two devices:
// device 0 uploads (H2D) and runs stage 1 on s1, a peer copy on s1 moves the result over
// the link to device 1, which runs stage 2 and downloads (D2H) on s2, while the host waits.
// Times in ns: H2D [0, 10000), stage 1 [10000, 20000), peer copy [20000, 25000), stage 2
// [25000, 35000), D2H [35000, 45000), the host's wait [0, 45000).
#ifndef STREAMLAB_TRACE_VIEW_TWO_DEVICES_TEST_H
#define STREAMLAB_TRACE_VIEW_TWO_DEVICES_TEST_H

#include <cstdio>

extern "C" {
#include "trace/view/timeline.h"
}

namespace two_devices {

inline trace_op Op(uint64_t id, trace_op_kind kind, trace_copy_dir dir, trace_engine engine, int32_t stream,
                   uint32_t device, uint64_t start, uint64_t end, const char *name = "") {
    trace_op op = {};
    op.id = id;
    op.kind = kind;
    op.dir = dir;
    op.engine = engine;
    op.stream = stream;
    op.device = op.dst_device = device;
    op.start_ns = start;
    op.end_ns = end;
    op.batch = 0;
    op.run = 0;
    op.bytes = kind == TRACE_OP_COPY ? 1u << 20 : 0;
    op.timed = true;
    snprintf(op.name, sizeof(op.name), "%s", name);
    return op;
}

// The ops, in program order; the peer copy is ops[2], stage 2 ops[3].
struct Run {
    trace_op ops[6];
};

inline Run Ops() {
    Run r;
    r.ops[0] = Op(1, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, 1, 0, 0, 10000);
    r.ops[1] = Op(2, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1, 0, 10000, 20000, "stage1");
    r.ops[2] = Op(3, TRACE_OP_COPY, TRACE_COPY_D2D, TRACE_ENGINE_LINK, 1, 0, 20000, 25000);
    trace_op_set_peer(&r.ops[2], 0, 1);
    r.ops[3] = Op(4, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 2, 1, 25000, 35000, "stage2");
    r.ops[4] = Op(5, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_ENGINE_D2H, 2, 1, 35000, 45000);
    r.ops[5] = Op(6, TRACE_OP_SYNC, TRACE_COPY_NONE, TRACE_ENGINE_HOST, TRACE_STREAM_NONE, 0, 0, 45000,
                  "cudaDeviceSynchronize");
    r.ops[5].batch = -1;
    return r;
}

// The timeline: s1 "a" of device 0, s2 "b" of device 1, and the ops. The caller destroys it.
inline trace_timeline *Timeline() {
    trace_timeline *tl = trace_timeline_create();
    trace_stream a = {}, b = {};
    a.id = 1;
    snprintf(a.name, sizeof(a.name), "a");
    b.id = 2;
    b.device = 1;
    snprintf(b.name, sizeof(b.name), "b");
    trace_timeline_add_stream(tl, &a);
    trace_timeline_add_stream(tl, &b);
    Run r = Ops();
    for (const trace_op &op : r.ops) trace_timeline_add_op(tl, &op);
    return tl;
}

}  // namespace two_devices

#endif
