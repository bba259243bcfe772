/* labs/harness/verify.c: exact comparison of outputs with the oracle, and a diagnosis of
 * the first wrong value: never written (the copy back had not finished, or never ran),
 * the untouched input (the kernel did not run on it), or another batch's result (a buffer
 * shared between batches without an order, or a copy to the wrong output). */
#include "labs/harness/verify.h"

#include <stdio.h>
#include <string.h>

#include "labs/harness/workload.h"

static void diagnose(const lab_buffers *b, const char *item, const char *items, lab_mismatch *m) {
    int batch = m->first_batch;
    size_t i = m->first_index;
    uint32_t got = m->got;
    if (got == LAB_POISON) {
        snprintf(m->why, sizeof(m->why),
                 "it was never written: no copy back into %s %d's output had reached it when run() "
                 "returned (one not finished, never issued, or shorter than the %s)",
                 item, batch, item);
        return;
    }
    if (got == b->inputs[batch][i]) {
        snprintf(m->why, sizeof(m->why),
                 "it equals the %s's input: the kernel's result never reached it (was the "
                 "kernel run on this %s, and copied back from its output buffer?)",
                 item, item);
        return;
    }
    for (int other = 0; other < b->workload.batches; other++) {
        if (other != batch && b->expected[other][i] == got) {
            snprintf(m->why, sizeof(m->why),
                     "it is %s %d's result: another %s's result reached this output (two %s "
                     "sharing a buffer without an order between them, or a result copied to "
                     "the wrong %s's output)",
                     item, other, item, items, item);
            return;
        }
    }
    snprintf(m->why, sizeof(m->why),
             "it matches no batch's input or result: a buffer was overwritten while it was "
             "still being read, or the kernel was given the wrong input");
}

lab_mismatch lab_verify(const lab_buffers *b, const char *item, const char *items) {
    lab_mismatch m;
    memset(&m, 0, sizeof(m));
    m.correct = true;
    m.first_batch = -1;
    const lab_workload *w = &b->workload;
    for (int batch = 0; batch < w->batches; batch++) {
        const uint32_t *got = b->outputs[batch];
        const uint32_t *want = b->expected[batch];
        if (memcmp(got, want, w->batch_bytes) == 0) continue;
        m.correct = false;
        m.wrong_batches++;
        if (m.first_batch >= 0) continue;
        m.first_batch = batch;
        for (size_t i = 0; i < w->batch_elems; i++) {
            if (got[i] == want[i]) continue;
            if (m.wrong_in_first++ == 0) {
                m.first_index = i;
                m.got = got[i];
                m.expected = want[i];
            }
        }
    }
    if (!m.correct) diagnose(b, item, items, &m);
    return m;
}
