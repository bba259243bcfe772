/* sim/core/profile_link.h: the optional "link" section of a device profile, which makes it a
 * profile of two devices joined by a link (NVLink or PCIe):
 *
 *   "link": {"device_count": {"value": 2, "source": "..."}, "peer_access_supported": ...,
 *            "peer_gbps": ..., "peer_bidir_total_gbps": ..., "peer_fixed_ns": ...,
 *            "staged_gbps": ..., "staged_bidir_total_gbps": ..., "staged_fixed_ns": ...}
 *
 * Every key must be present with a source, as in the other sections; unknown keys are
 * errors. Without the section a profile describes one device, as before. */
#ifndef STREAMLAB_SIM_CORE_PROFILE_LINK_H
#define STREAMLAB_SIM_CORE_PROFILE_LINK_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most devices a profile may describe: the link model joins two. */
#define SIM_MAX_DEVICES 2

/* Reads root's "link" section into out (device_count 1 and nothing else when there is
 * none). Returns 0, or -1 with a message in err. */
int sim_profile_parse_link(const cJSON *root, const char *origin, sim_profile_link *out, char *err,
                           size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
