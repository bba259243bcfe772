#!/usr/bin/env bash
# third_party/gpu_present_test.sh: gpu_present.sh says yes for each sign of an NVIDIA GPU or
# driver and no on a machine with none of them (the CUDA toolkit alone, say), on a made-up
# /dev, /proc, ldconfig and PATH, whatever the machine running the test has.
set -u
probe="${TEST_SRCDIR}/${TEST_WORKSPACE}/third_party/gpu_present.sh"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/gpu_present.XXXXXX")"
failures=0

# A machine: a root for /dev and /proc, and a bin folder that is the whole PATH.
fresh() {
  rm -rf "${work}/m"
  mkdir -p "${work}/m/root/dev" "${work}/m/root/proc" "${work}/m/bin"
  ln -s "$(command -v grep)" "${work}/m/bin/grep"
  printf '#!/bin/sh\necho "	libc.so.6 (libc6,x86-64) => /lib/libc.so.6"\n' >"${work}/m/bin/ldconfig"
  chmod +x "${work}/m/bin/ldconfig"
}
expect() {
  local want="$1" what="$2" out rc
  out="$(STREAMLAB_GPU_PROBE_ROOT="${work}/m/root" LDCONFIG="${work}/m/bin/ldconfig" PATH="${work}/m/bin" \
    /bin/bash "${probe}")"
  rc=$?
  if [[ "${rc}" != "${want}" ]]; then
    echo "FAIL: ${what}: exit ${rc}, expected ${want} (it said: ${out})"
    failures=$((failures + 1))
  else
    echo "ok: ${what}: ${out}"
  fi
}

fresh
mkdir -p "${work}/m/root/usr/local/cuda/bin" && touch "${work}/m/root/usr/local/cuda/bin/nvcc"
expect 1 "the toolkit alone"

fresh
touch "${work}/m/root/dev/nvidiactl"
expect 1 "a control node without a device"

fresh
touch "${work}/m/root/dev/nvidia0"
expect 0 "/dev/nvidia0"

fresh
touch "${work}/m/root/dev/nvidia3"
expect 0 "/dev/nvidia3 alone"

fresh
mkdir -p "${work}/m/root/proc/driver/nvidia/gpus/0000:01:00.0"
expect 0 "the driver's /proc entry"

fresh
printf '#!/bin/sh\necho "	libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1"\n' >"${work}/m/bin/ldconfig"
expect 0 "the driver's libcuda.so.1"

fresh
printf '#!/bin/sh\necho "	libcudart.so.13 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.13"\n' >"${work}/m/bin/ldconfig"
expect 1 "the toolkit's libcudart, not the driver"

fresh
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 (UUID: GPU-0)"\n' >"${work}/m/bin/nvidia-smi"
chmod +x "${work}/m/bin/nvidia-smi"
expect 0 "nvidia-smi listing a GPU"

fresh
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' \
  >"${work}/m/bin/nvidia-smi"
chmod +x "${work}/m/bin/nvidia-smi"
expect 1 "nvidia-smi that finds no driver"

rm -rf "${work}"
if ((failures)); then
  echo "${failures} case(s) failed"
  exit 1
fi
