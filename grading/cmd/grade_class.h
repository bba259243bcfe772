/* grading/cmd/grade_class.h: the parts of grading a class (grade_mode_class.c) that live in
 * files of their own: opening the class and its --out folder (grade_class_open.c), the
 * workers that grade one student each and what the main process does when one is done
 * (grade_class_workers.c), and the two ways a class's results come without grading
 * anyone: --rescore (grade_mode_rescore.c) and --merge (grade_mode_merge.c). */
#ifndef STREAMLAB_GRADING_GRADE_CLASS_H
#define STREAMLAB_GRADING_GRADE_CLASS_H

#include <stddef.h>

#include "grading/cmd/grade_app.h"

/* The submissions and --out folders, checked before the pre-flight run. */
int grade_class_open(grade_app *a);
/* The pool's job: submission a->order[k] graded in a worker process (grade_pool.h). */
int grade_class_job(void *ctx, size_t k);
/* The pool's done: the worker's result taken into a->students (or the student marked lost). */
void grade_class_done(void *ctx, size_t k, int status);
/* Submission i's reports into its folder of OUT (a->dirs, from grade_student_dir.h: the
 * name is a display string, never a path), written inside OUT and through no link. A
 * refusal is said, naming the path, and in the student's note; the class goes on. */
int grade_class_write_reports(const grade_app *a, size_t i, grade_student *s, const grade_report_context *ctx);
/* --rescore: each student's stored result scored by the rubric again, with this run's late
 * times; no lab runs. Returns NULL, or what INCOMPLETE.txt says when students had no stored
 * result. */
char *grade_rescore_class(grade_app *a);
/* --merge: each Slurm task's stored results (OUT/slurm/shards/K) taken for its share of
 * the class, their reports written into OUT as a worker's are. Returns NULL when every
 * student was graded, else what INCOMPLETE.txt says: the tasks that did not finish, their
 * students without a grade, and the command that grades them again. */
char *grade_merge_tasks(grade_app *a);

#endif
