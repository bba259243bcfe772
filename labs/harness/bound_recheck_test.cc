// labs/harness/bound_recheck_test.cc: of the bound's measurements across the timed runs the
// median stands; a bound longer than the baseline is measured again and the shortest
// measurement stands; a bound within the baseline is never measured again.
#include "labs/harness/bound_recheck.h"

#include <gtest/gtest.h>

#include <string>
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

TEST(BoundMedian, TheMiddleMeasurementStandsWhereverItWasMade) {
    // Lab 07 on a lent H200: a fast first measurement no longer sets the bound alone.
    const double fast_first[] = {1.24e6, 1.40e6, 1.42e6};
    EXPECT_EQ(lab_bound_median_index(fast_first, 3), 1);
    const double slow_last[] = {1.40e6, 1.38e6, 1.52e6};
    EXPECT_EQ(lab_bound_median_index(slow_last, 3), 0);
    const double middle_last[] = {3.0, 1.0, 2.0};
    EXPECT_EQ(lab_bound_median_index(middle_last, 3), 2);
}

TEST(BoundMedian, EqualMeasurementsGiveOneAnswer) {
    const double same[] = {2.0, 2.0, 2.0};
    EXPECT_EQ(lab_bound_median_index(same, 3), 1);
    const double two_same[] = {5.0, 2.0, 2.0};
    EXPECT_EQ(lab_bound_median_index(two_same, 3), 2);
}

TEST(BoundMedian, FewerMeasurements) {
    const double one[] = {4.0};
    EXPECT_EQ(lab_bound_median_index(one, 1), 0);
    const double two[] = {4.0, 3.0};
    EXPECT_EQ(lab_bound_median_index(two, 2), 1);  // the shorter of two
    EXPECT_EQ(lab_bound_median_index(two, 0), -1);
}

TEST(BoundSpread, MeasurementsThatMovedAreShownWithTheMedianStanding) {
    const double moved[] = {1.392, 1.228, 1.380};
    char text[200];
    ASSERT_TRUE(lab_bound_spread_text(moved, 3, text, sizeof(text)));
    EXPECT_STREQ(text, "measured 3 times, before, during and after your runs (1.392, 1.228, 1.380 ms): this "
                       "machine's speed moved, and the median stands");
}

TEST(BoundSpread, MeasurementsThatAgreeAreNotShown) {
    const double agree[] = {2.442, 2.447, 2.440};  // lab 03 on an H200: within 0.3%
    const double near[] = {1.428, 1.403, 1.439};   // lab 07 on an H200: within 2.5%
    const double same[] = {1.363, 1.363, 1.363};   // the simulator
    const double one[] = {1.0};
    char text[200] = "";
    EXPECT_FALSE(lab_bound_spread_text(agree, 3, text, sizeof(text)));
    EXPECT_FALSE(lab_bound_spread_text(near, 3, text, sizeof(text)));
    EXPECT_FALSE(lab_bound_spread_text(same, 3, text, sizeof(text)));
    EXPECT_FALSE(lab_bound_spread_text(one, 1, text, sizeof(text)));
    EXPECT_STREQ(text, "");
}

TEST(BoundSpread, AShortBufferIsCutNotOverrun) {
    const double moved[] = {1.392, 1.228, 1.380};
    char text[24];
    ASSERT_TRUE(lab_bound_spread_text(moved, 3, text, sizeof(text)));
    EXPECT_EQ(std::string(text), "measured 3 times, befor");
}

}  // namespace
