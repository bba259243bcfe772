#!/usr/bin/env bash
# third_party/gpu_present.sh: whether this machine has an NVIDIA GPU or its driver, the
# one test of it that the build (third_party/cuda_configure.bzl, under STREAMLAB_GPU=auto:
# the GPU variants are built only where this says yes) and ./setup.sh's summary share.
#
#   gpu_present.sh    exit 0 and print what was seen, or exit 1 and print what was looked for
#
# Seen: a device node /dev/nvidia0 (or any /dev/nvidiaN), the driver's /proc/driver/nvidia/gpus
# entries, the driver's library libcuda.so.1 known to the dynamic linker (ldconfig -p), or
# an nvidia-smi that lists a GPU. The CUDA toolkit alone is none of these: it can build GPU
# code, but nothing here could run it.
# STREAMLAB_GPU_PROBE_ROOT (tests) puts /dev and /proc under another folder; LDCONFIG names
# the ldconfig to ask (default: ldconfig on PATH, else /sbin/ldconfig).
set -u

root="${STREAMLAB_GPU_PROBE_ROOT:-}"

shopt -s nullglob
nodes=("${root}"/dev/nvidia[0-9]*)
gpus=("${root}"/proc/driver/nvidia/gpus/*)
shopt -u nullglob
if ((${#nodes[@]})); then
  echo "device ${nodes[0]#"${root}"}"
  exit 0
fi
if ((${#gpus[@]})); then
  echo "the NVIDIA driver's /proc/driver/nvidia/gpus"
  exit 0
fi

ldconfig="${LDCONFIG:-$(command -v ldconfig || echo /sbin/ldconfig)}"
if [[ -x "${ldconfig}" ]] && "${ldconfig}" -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "the NVIDIA driver's libcuda.so.1"
  exit 0
fi

if command -v nvidia-smi >/dev/null 2>&1 && listed="$(nvidia-smi -L 2>/dev/null)" && [[ "${listed}" == GPU* ]]; then
  echo "${listed%%$'\n'*}"
  exit 0
fi

echo "no /dev/nvidia0, no NVIDIA driver (libcuda.so.1), no nvidia-smi listing a GPU"
exit 1
