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

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The optional "link" section (this file): a profile of two devices joined by a link.
 * A profile without it describes one device (device_count 1, no peers). Times in ns,
 * bandwidths in GB/s. */
typedef struct sim_profile_link {
    int device_count;            /* devices of the profile, each with the figures above */
    bool peer_access_supported;  /* what cudaDeviceCanAccessPeer answers between them */
    double peer_gbps;            /* a peer copy over the link, peer access enabled, one way */
    double peer_bidir_total_gbps; /* both directions at once, in total */
    double peer_fixed_ns;        /* a peer copy's set-up on the link */
    double staged_gbps;          /* a peer copy without peer access (staged by the host) */
    double staged_bidir_total_gbps;
    double staged_fixed_ns;
} sim_profile_link;

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
