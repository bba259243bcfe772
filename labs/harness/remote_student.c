/* labs/harness/remote_student.c: what a referee's lab binary links in place of the student's
 * file: the student's lab is the three functions that drive the student's own process (remote.h),
 * and the runner is told to start that process (lab_student_runs_apart). */
#include "labs/harness/remote.h"

const lab_impl LAB_STUDENT = {lab_remote_setup, lab_remote_run, lab_remote_teardown};

bool lab_student_runs_apart(void) { return true; }
