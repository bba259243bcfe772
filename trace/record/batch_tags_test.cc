// trace/batch_tags_test.cc: the recorder gives ops the harness batch of the bytes they
// read, and ops tag the bytes they write, so a batch can be followed from the host
// buffer through H2D, kernel and D2H.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "trace/record/recorder.h"
}

namespace {

std::vector<trace_op> seen;
void Keep(void *, const trace_op *op) { seen.push_back(*op); }

class BatchTags : public ::testing::Test {
  protected:
    void SetUp() override {
        trace_reset();
        seen.clear();
        trace_sink sink = {};
        sink.ctx = this;
        sink.on_op = Keep;
        ASSERT_EQ(trace_add_sink(&sink), 0);
        trace_stream_created(&stream, 0, 0);
    }
    void TearDown() override { trace_reset(); }

    uint64_t Copy(trace_copy_dir dir, const void *dst, const void *src, uint64_t bytes, int32_t batch = -1) {
        trace_op op = {};
        op.kind = TRACE_OP_COPY;
        op.dir = dir;
        op.batch = batch;
        op.bytes = bytes;
        trace_op_add_range(&op, src, bytes, TRACE_RANGE_READ);
        trace_op_add_range(&op, dst, bytes, TRACE_RANGE_WRITE);
        return trace_record(&op, &stream);
    }
    uint64_t Kernel(const void *in, uint64_t in_bytes, const void *out, uint64_t out_bytes) {
        trace_op op = {};
        op.kind = TRACE_OP_KERNEL;
        op.batch = -1;
        snprintf(op.name, sizeof(op.name), "process");
        trace_op_add_range(&op, in, in_bytes, TRACE_RANGE_READ);
        trace_op_add_range(&op, out, out_bytes, TRACE_RANGE_WRITE);
        return trace_record(&op, &stream);
    }
    int32_t BatchOf(uint64_t id) {
        for (const trace_op &op : seen)
            if (op.id == id) return op.batch;
        return -100;
    }

    int stream = 0;
    char host_in[4096] = {}, host_out[4096] = {}, dev_in[4096] = {}, dev_out[4096] = {};
};

TEST_F(BatchTags, FollowsOneBatchFromHostThroughKernelToHost) {
    trace_record_host_access(host_in, sizeof(host_in), true, "lab_load_batch", 3, 0);
    uint64_t h2d = Copy(TRACE_COPY_H2D, dev_in, host_in, sizeof(dev_in));
    uint64_t k = Kernel(dev_in, sizeof(dev_in), dev_out, sizeof(dev_out));
    uint64_t d2h = Copy(TRACE_COPY_D2H, host_out, dev_out, sizeof(host_out));
    EXPECT_EQ(BatchOf(h2d), 3);
    EXPECT_EQ(BatchOf(k), 3);
    EXPECT_EQ(BatchOf(d2h), 3);
    // The next batch reuses the buffers and re-tags them.
    trace_record_host_access(host_in, sizeof(host_in), true, "lab_load_batch", 4, 0);
    h2d = Copy(TRACE_COPY_H2D, dev_in, host_in, sizeof(dev_in));
    k = Kernel(dev_in, sizeof(dev_in), dev_out, sizeof(dev_out));
    EXPECT_EQ(BatchOf(h2d), 4);
    EXPECT_EQ(BatchOf(k), 4);
}

TEST_F(BatchTags, DeclaredBatchWinsAndPropagates) {
    trace_record_host_access(host_in, sizeof(host_in), true, "lab_load_batch", 1, 0);
    uint64_t h2d = Copy(TRACE_COPY_H2D, dev_in, host_in, sizeof(dev_in), 9);
    uint64_t k = Kernel(dev_in, sizeof(dev_in), dev_out, sizeof(dev_out));
    EXPECT_EQ(BatchOf(h2d), 9);
    EXPECT_EQ(BatchOf(k), 9);
}

TEST_F(BatchTags, TheBatchCoveringMostReadBytesWins) {
    trace_record_host_access(host_in, 1024, true, "lab_load_batch", 5, 0);
    trace_record_host_access(host_in + 1024, 3072, true, "lab_load_batch", 6, 0);
    uint64_t h2d = Copy(TRACE_COPY_H2D, dev_in, host_in, sizeof(dev_in));
    EXPECT_EQ(BatchOf(h2d), 6);
    // Reading only the first kilobyte gives batch 5.
    uint64_t part = Copy(TRACE_COPY_H2D, dev_out, host_in, 1024);
    EXPECT_EQ(BatchOf(part), 5);
}

TEST_F(BatchTags, UntaggedWritesClearTheTag) {
    trace_record_host_access(host_in, sizeof(host_in), true, "lab_load_batch", 2, 0);
    Copy(TRACE_COPY_H2D, dev_in, host_in, sizeof(dev_in));
    trace_op memset_op = {};
    memset_op.kind = TRACE_OP_MEMSET;
    memset_op.batch = -1;
    trace_op_add_range(&memset_op, dev_in, sizeof(dev_in), TRACE_RANGE_WRITE);
    trace_record(&memset_op, &stream);
    EXPECT_EQ(memset_op.batch, -1);
    uint64_t k = Kernel(dev_in, sizeof(dev_in), dev_out, sizeof(dev_out));
    EXPECT_EQ(BatchOf(k), -1);
}

TEST(BatchTagsNoSink, NothingIsInferredWithoutSinks) {
    trace_reset();
    char buf[64];
    trace_record_host_access(buf, sizeof(buf), true, "lab_load_batch", 3, 0);
    trace_op op = {};
    op.kind = TRACE_OP_COPY;
    op.batch = -1;
    trace_op_add_range(&op, buf, sizeof(buf), TRACE_RANGE_READ);
    trace_record(&op, nullptr);
    EXPECT_EQ(op.batch, -1);
}

}  // namespace
