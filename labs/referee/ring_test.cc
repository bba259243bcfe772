// labs/referee/ring_test.cc: the command ring between two processes: records of every size
// arrive whole, in order and with their sequence numbers; replies reach the command that
// waits for them; a producer that writes nonsense into the ring is refused, not obeyed.
#include "labs/referee/ring.h"

#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace {

constexpr uint32_t kOpData = 7;
constexpr uint32_t kOpSync = 8;
constexpr uint32_t kOpEnd = 9;

struct Shared {
    void *mem;
    size_t bytes;
    explicit Shared(size_t capacity) : bytes(lab_ring_bytes(capacity)) {
        mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    }
    ~Shared() { munmap(mem, bytes); }
};

// The payload of record i: its length and bytes both follow from i.
uint32_t LengthOf(uint32_t i, uint32_t max) { return (i * 2654435761u) % (max + 1); }
uint8_t ByteOf(uint32_t i, uint32_t k) { return static_cast<uint8_t>(i * 31u + k * 7u); }

// The producer side in a child process: n data records, a synchronising record every 97th
// whose reply it checks, then the end. Exits 0 when every reply was right.
void Produce(void *mem, uint32_t n) {
    lab_ring *r = lab_ring_attach(mem);
    uint32_t max = static_cast<uint32_t>(lab_ring_max_payload(r));
    std::vector<uint8_t> buf(max);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = LengthOf(i, max);
        for (uint32_t k = 0; k < len; k++) buf[k] = ByteOf(i, k);
        lab_ring_send(r, kOpData, buf.data(), len);
        if (i % 97 == 0) {
            uint64_t seq = lab_ring_send(r, kOpSync, &i, sizeof(i));
            uint32_t answer = 0;
            uint32_t got = lab_ring_await(r, seq, &answer, sizeof(answer));
            if (got != sizeof(answer) || answer != i + 1) bad++;
        }
    }
    lab_ring_send(r, kOpEnd, nullptr, 0);
    lab_ring_free(r);
    _exit(bad ? 1 : 0);
}

TEST(Ring, RecordsOfEverySizeArriveWholeAndInOrderAcrossProcesses) {
    Shared sh(8192);
    lab_ring *r = lab_ring_init(sh.mem, 8192);
    ASSERT_NE(r, nullptr);
    uint32_t max = static_cast<uint32_t>(lab_ring_max_payload(r));
    const uint32_t n = 5000;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) Produce(sh.mem, n);

    std::vector<uint8_t> buf(max);
    uint32_t data = 0;
    uint64_t seq = 0;
    for (;;) {
        lab_ring_record rec;
        ASSERT_EQ(lab_ring_next(r, &rec, buf.data(), max, 10000), LAB_RING_OK);
        ASSERT_EQ(rec.seq, ++seq);
        if (rec.op == kOpEnd) break;
        if (rec.op == kOpSync) {
            uint32_t i;
            ASSERT_EQ(rec.len, sizeof(i));
            memcpy(&i, buf.data(), sizeof(i));
            uint32_t answer = i + 1;
            lab_ring_reply(r, rec.seq, &answer, sizeof(answer));
            continue;
        }
        ASSERT_EQ(rec.op, kOpData);
        ASSERT_EQ(rec.len, LengthOf(data, max)) << "record " << data;
        for (uint32_t k = 0; k < rec.len; k++) ASSERT_EQ(buf[k], ByteOf(data, k)) << "record " << data << " byte " << k;
        data++;
    }
    EXPECT_EQ(data, n);
    EXPECT_EQ(lab_ring_pending(r), 0u);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a reply did not reach its command";
    lab_ring_free(r);
}

TEST(Ring, AnEmptyRingTimesOut) {
    Shared sh(4096);
    lab_ring *r = lab_ring_init(sh.mem, 4096);
    lab_ring_record rec;
    uint8_t buf[16];
    EXPECT_EQ(lab_ring_next(r, &rec, buf, sizeof(buf), 30), LAB_RING_TIMEOUT);
    lab_ring_free(r);
}

TEST(Ring, ARecordLargerThanTheConsumersBufferIsRefused) {
    Shared sh(4096);
    lab_ring *cons = lab_ring_init(sh.mem, 4096);
    lab_ring *prod = lab_ring_attach(sh.mem);
    uint8_t big[200] = {0};
    lab_ring_send(prod, kOpData, big, sizeof(big));
    lab_ring_record rec;
    uint8_t buf[64];
    EXPECT_EQ(lab_ring_next(cons, &rec, buf, sizeof(buf), 0), LAB_RING_TOO_BIG);
    lab_ring_free(prod);
    lab_ring_free(cons);
}

// What a hostile producer can write into shared memory: the consumer's own read position
// and capacity are not there, so each of these is refused, however the bytes are set.
struct Forgery {
    const char *what;
    void (*forge)(unsigned char *mem, size_t ring_offset, uint64_t capacity);
};

uint64_t *HeadOf(unsigned char *mem) { return reinterpret_cast<uint64_t *>(mem); }

TEST(Ring, WhatAHostileProducerWritesIsRefused) {
    const Forgery forgeries[] = {
        {"a write position far past the ring",
         [](unsigned char *mem, size_t, uint64_t cap) { *HeadOf(mem) = cap * 4; }},
        {"a write position that is not a record boundary",
         [](unsigned char *mem, size_t, uint64_t) { *HeadOf(mem) = 24; }},
        {"a record longer than what was published",
         [](unsigned char *mem, size_t off, uint64_t) {
             uint32_t op = kOpData, len = 1000;
             uint64_t seq = 1;
             memcpy(mem + off, &op, 4);
             memcpy(mem + off + 4, &len, 4);
             memcpy(mem + off + 8, &seq, 8);
             *HeadOf(mem) = 32;
         }},
        {"a record out of sequence",
         [](unsigned char *mem, size_t off, uint64_t) {
             uint32_t op = kOpData, len = 0;
             uint64_t seq = 5;
             memcpy(mem + off, &op, 4);
             memcpy(mem + off + 4, &len, 4);
             memcpy(mem + off + 8, &seq, 8);
             *HeadOf(mem) = 16;
         }},
        {"padding that does not reach the end of the ring",
         [](unsigned char *mem, size_t off, uint64_t) {
             uint32_t op = 0, len = 16;
             uint64_t seq = 0;
             memcpy(mem + off, &op, 4);
             memcpy(mem + off + 4, &len, 4);
             memcpy(mem + off + 8, &seq, 8);
             *HeadOf(mem) = 32;
         }},
    };
    for (const Forgery &f : forgeries) {
        Shared sh(4096);
        lab_ring *r = lab_ring_init(sh.mem, 4096);
        // The records start where a producer's first reserve puts its payload, less the header.
        lab_ring *prod = lab_ring_attach(sh.mem);
        unsigned char *first = static_cast<unsigned char *>(lab_ring_reserve(prod, kOpData, 0)) - 16;
        size_t off = static_cast<size_t>(first - static_cast<unsigned char *>(sh.mem));
        f.forge(static_cast<unsigned char *>(sh.mem), off, 4096);
        lab_ring_record rec;
        uint8_t buf[64];
        EXPECT_EQ(lab_ring_next(r, &rec, buf, sizeof(buf), 0), LAB_RING_BROKEN) << f.what;
        lab_ring_free(prod);
        lab_ring_free(r);
    }
}

}  // namespace
