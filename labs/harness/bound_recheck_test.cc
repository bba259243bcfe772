// labs/harness/bound_recheck_test.cc: a bound longer than the baseline is measured again and
// the shortest measurement stands; a bound within the baseline is never measured again.
#include "labs/harness/bound_recheck.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

// Measurements played back in order; -1 is a failed measurement. kept: the ones kept.
struct Playback {
    std::vector<double> next;
    size_t at = 0;
    double last = 0;
    std::vector<double> kept;
};

int Measure(void *arg, double *ns) {
    auto *p = static_cast<Playback *>(arg);
    if (p->at >= p->next.size()) return 1;
    p->last = p->next[p->at++];
    if (p->last < 0) return 1;
    *ns = p->last;
    return 0;
}

void Keep(void *arg) {
    auto *p = static_cast<Playback *>(arg);
    p->kept.push_back(p->last);
}

int Recheck(double *ideal, double baseline, int tries, Playback *p) {
    lab_bound_again again = {Measure, Keep, p};
    return lab_bound_recheck(ideal, baseline, tries, &again);
}

TEST(BoundRecheck, ABoundWithinTheBaselineIsNotMeasuredAgain) {
    Playback p;
    p.next = {1.0};
    double ideal = 2.5e6;
    EXPECT_EQ(Recheck(&ideal, 6.4e6, 2, &p), 0);
    EXPECT_EQ(ideal, 2.5e6);
    EXPECT_TRUE(p.kept.empty());
}

TEST(BoundRecheck, ADisturbedBoundIsReplacedByTheNextMeasurement) {
    Playback p;
    p.next = {2.48e6, 9e6};
    double ideal = 8.69e6;
    EXPECT_EQ(Recheck(&ideal, 6.38e6, 2, &p), 1);
    EXPECT_EQ(ideal, 2.48e6);
    ASSERT_EQ(p.kept.size(), 1u);
}

TEST(BoundRecheck, TheShortestOfTheMeasurementsStands) {
    Playback p;
    p.next = {7.5e6, 8.0e6, 2.0e6};
    double ideal = 9e6;
    EXPECT_EQ(Recheck(&ideal, 6e6, 2, &p), 2);
    EXPECT_EQ(ideal, 7.5e6);  // two tries: the third is never made
    EXPECT_EQ(p.kept, std::vector<double>{7.5e6});
}

TEST(BoundRecheck, AFailedMeasurementKeepsTheBoundItHad) {
    Playback p;
    p.next = {-1, 1e6};
    double ideal = 9e6;
    EXPECT_EQ(Recheck(&ideal, 6e6, 2, &p), 1);
    EXPECT_EQ(ideal, 9e6);
    EXPECT_TRUE(p.kept.empty());
}

TEST(BoundRecheck, NoBaselineNoRecheck) {
    Playback p;
    p.next = {1e6};
    double ideal = 9e6;
    EXPECT_EQ(Recheck(&ideal, 0, 2, &p), 0);
    EXPECT_EQ(ideal, 9e6);
}

}  // namespace
