/* grading/out/grade_student_dir.h: the folder in --out that a student's reports go to.
 *
 * A student's name comes from what a student or a platform controls (a Gradescope
 * :name:, a Moodle full name, a file or folder name): it is a display string, never a
 * path. The folder is the name itself when that is safe as it is: no '/' or '\', no
 * control character, not starting with '.', '_' or a space, not ending with '.' or a
 * space, at most GRADE_STUDENT_DIR_MAX bytes, and not the name of a file the grader writes
 * for the class (gradebook.csv, junit.xml, similarity.txt, INCOMPLETE.txt, slurm, ...), nor
 * one of those followed by '.' and more, compared without regard to case. Any other name
 * is cleaned (those characters made '_', the leading and trailing ones taken off, cut to
 * the limit between UTF-8 characters; "student" when nothing is left; "student_" before a
 * class file's name) and given "-" and 8
 * hex digits of a hash of the whole name, so that two names that clean alike ("Honest
 * Student" and "./Honest Student") get distinct folders, the same ones on every run. The
 * class's folders are then made distinct (ignoring case, for a --out copied to a system
 * that ignores it): names that are their own folder claim theirs first, then the others,
 * each in name order, and one whose folder is taken gets "-2", "-3". The same class maps
 * each student to the same folder on every run (--regrade, --resume, the merge of a Slurm
 * run). */
#ifndef STREAMLAB_GRADE_STUDENT_DIR_H
#define STREAMLAB_GRADE_STUDENT_DIR_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_STUDENT_DIR_MAX 100

/* Whether name is (ignoring case) one of the files and folders the grader writes in --out
 * for the whole class, or one of their names followed by '.' and more (a temporary file
 * beside it). */
bool grade_class_file_name(const char *name);
/* The folder of one student's reports, from their name alone (malloc'd). */
char *grade_student_dirname(const char *name);
/* The folders of a class's students, distinct: names[i]'s in the i-th entry (malloc'd
 * array of malloc'd strings; free with grade_student_dirnames_free). */
char **grade_student_dirnames(const char *const *names, size_t n);
void grade_student_dirnames_free(char **dirs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
