/* grading/base/grade_time.c: ISO 8601 times with a zone, as rubrics and platforms write
 * them (see grade_time.h). */
#define _GNU_SOURCE
#include "grading/base/grade_time.h"

#include <ctype.h>
#include <time.h>

static int digits(const char **p, int n, int *out) {
    *out = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p)) return -1;
        *out = *out * 10 + (**p - '0');
    }
    return 0;
}

int grade_time_parse(const char *s, bool zone_optional, long long *out) {
    const char *p = s;
    while (*p == ' ') p++;
    int y, mo, d, h, mi, sec = 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d)) return -1;
    if (*p != 'T' && *p != 't' && *p != ' ') return -1;
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi)) return -1;
    if (*p == ':') {
        p++;
        if (digits(&p, 2, &sec)) return -1;
        if (*p == '.' || *p == ',')
            for (p++; isdigit((unsigned char)*p); p++) {
            }
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return -1;
    while (*p == ' ') p++;
    long zone = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, zh, zm = 0;
        if (digits(&p, 2, &zh)) return -1;
        if (*p == ':') p++;
        if (isdigit((unsigned char)*p) && digits(&p, 2, &zm)) return -1;
        if (zh > 14 || zm > 59) return -1;
        zone = sign * (zh * 3600L + zm * 60L);
    } else if (!zone_optional) {
        return -1;
    }
    while (*p == ' ') p++;
    if (*p) return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec};
    time_t t = timegm(&tm);
    if (tm.tm_mday != d) return -1; /* 2026-02-30 */
    *out = (long long)t - zone;
    return 0;
}
