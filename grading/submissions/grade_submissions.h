/* grading/submissions/grade_submissions.h: the front door of grading/submissions/, finding
 * the students and their files (docs/architecture.md): a submissions folder read by its
 * platform's layout (grade_layout.h) into submissions (grade_submission.h), each an index
 * of files from a folder or an archive (grade_index.h, grade_archive.h), with a roster
 * naming who is who (grade_roster.h). Include this header, or the one you need. */
#ifndef STREAMLAB_GRADING_SUBMISSIONS_GRADE_SUBMISSIONS_H
#define STREAMLAB_GRADING_SUBMISSIONS_GRADE_SUBMISSIONS_H

#include "grading/submissions/grade_archive.h"
#include "grading/submissions/grade_index.h"
#include "grading/submissions/grade_layout.h"
#include "grading/submissions/grade_roster.h"
#include "grading/submissions/grade_submission.h"

#endif
