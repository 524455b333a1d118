// The exchange through PMIx (sources.hpp), for nodes started by mpirun or
// srun --mpi=pmix: every node puts its blob under one key, a fence that
// collects the data runs over the whole job, then each node gets every
// rank's blob from its local PMIx server.
//
// Why PMIx_Finalize right after the exchange, not at the end of the run:
// PMIx is needed only here, and finalizing stops its progress thread and
// releases its connection while nothing else runs yet. At the end of the
// run the nodes other than 0 leave with _exit (runtime/control/boot.cpp),
// so a finalize there would need a hook on every way out. A launcher that
// sees a process exit without finalizing may report it as failed; one that
// finalized early and then exits 0 is a normal end, and one that dies later
// is still seen (mpirun watches its children's exits, not PMIx).
//
// Why the libraries are named as runtime code first: libpmix, libevent and
// hwloc keep their mutexes in memory they malloc, which is the global heap,
// and libdstd's pthread interposer would serve those cluster-wide
// (runtime/common/runtime_libraries.hpp) — here, before the transport even
// has peers. Their calls must go to glibc like libdstd's own. PMIx's
// progress thread is an ordinary OS thread (libdstd does not interpose
// pthread_create), never a dstd thread, and it is gone after finalize.
#include <pmix.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "runtime/common/fatal.hpp"
#include "runtime/common/runtime_libraries.hpp"
#include "runtime/transport/wireup/sources.hpp"

namespace dstd::rt::wireup {

namespace {

constexpr const char* blob_key = "dstd.blob";

void note_pmix_libraries() {
  static constexpr const char* libraries[] = {"/libpmix.so", "/pmix_mca_", "/libevent",
                                              "/libhwloc.so", "/hwloc/", "/libmunge.so"};
  note_runtime_libraries(libraries, std::size(libraries));
}

void check(pmix_status_t rc, const char* what) {
  if (rc != PMIX_SUCCESS) {
    fatal("wire-up through PMIx failed: %s: %s", what, PMIx_Error_string(rc));
  }
}

void check_rank(pmix_status_t rc, const char* what, unsigned rank) {
  if (rc != PMIX_SUCCESS) {
    fatal("wire-up through PMIx failed: %s of rank %u: %s", what, rank, PMIx_Error_string(rc));
  }
}

// A pmix_value_t that PMIx_Get returned, released on every path.
struct got_value {
  pmix_value_t* value = nullptr;
  got_value() = default;
  got_value(const got_value&) = delete;
  got_value& operator=(const got_value&) = delete;
  ~got_value() {
    if (value != nullptr) {
      PMIx_Value_destruct(value);
      std::free(value);
    }
  }
};

pmix_proc_t proc_of(const pmix_proc_t& me, pmix_rank_t rank) {
  pmix_proc_t p{};
  std::memcpy(p.nspace, me.nspace, sizeof p.nspace);
  p.rank = rank;
  return p;
}

// The job's size as PMIx knows it, which must be the one launch_info took
// from the launcher's variables.
void check_job_size(const pmix_proc_t& me, const launch_info& launch) {
  const pmix_proc_t job = proc_of(me, PMIX_RANK_WILDCARD);
  got_value size;
  check(PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &size.value), "getting the job size");
  if (size.value->type != PMIX_UINT32) fatal("wire-up through PMIx: the job size is not a number");
  if (size.value->data.uint32 != launch.nodes) {
    fatal("PMIx says the job has %u processes, but %u nodes were expected from the launcher's "
          "variables", size.value->data.uint32, launch.nodes);
  }
}

}  // namespace

std::vector<std::vector<std::byte>> exchange_through_pmix(const launch_info& launch,
                                                          std::span<const std::byte> mine,
                                                          unsigned timeout_ms) {
  note_pmix_libraries();
  pmix_proc_t me{};
  check(PMIx_Init(&me, nullptr, 0), "PMIx_Init (connecting to the launcher's PMIx server)");
  note_pmix_libraries();  // and the plug-ins PMIx_Init loaded
  if (me.rank != launch.self) {
    fatal("PMIx says this process is rank %u, but %s says %u", me.rank, launch.rank_variable,
          launch.self);
  }
  check_job_size(me, launch);

  pmix_value_t value{};
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(mine.data()));
  value.data.bo.size = mine.size();
  check(PMIx_Put(PMIX_GLOBAL, blob_key, &value), "PMIx_Put of this node's record");
  check(PMIx_Commit(), "PMIx_Commit");

  // PMIx counts the timeout in whole seconds.
  const int timeout_s = static_cast<int>(std::max(1u, (timeout_ms + 999) / 1000));
  const bool collect = true;
  pmix_info_t fence_info[2];
  PMIx_Info_load(&fence_info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  PMIx_Info_load(&fence_info[1], PMIX_TIMEOUT, &timeout_s, PMIX_INT);
  const pmix_proc_t everyone = proc_of(me, PMIX_RANK_WILDCARD);
  if (const pmix_status_t rc = PMIx_Fence(&everyone, 1, fence_info, 2); rc != PMIX_SUCCESS) {
    fatal("wire-up through PMIx failed: the fence over all %u nodes did not complete within "
          "%d s (did every node start?): %s",
          launch.nodes, timeout_s, PMIx_Error_string(rc));
  }

  pmix_info_t get_info;
  PMIx_Info_load(&get_info, PMIX_TIMEOUT, &timeout_s, PMIX_INT);
  std::vector<std::vector<std::byte>> blobs(launch.nodes);
  for (node_id n = 0; n < launch.nodes; ++n) {
    const pmix_proc_t peer = proc_of(me, n);
    got_value got;
    check_rank(PMIx_Get(&peer, blob_key, &get_info, 1, &got.value), "getting the record", n);
    if (got.value->type != PMIX_BYTE_OBJECT) {
      fatal("wire-up through PMIx: the record of rank %u is not bytes", n);
    }
    const auto* bytes = reinterpret_cast<const std::byte*>(got.value->data.bo.bytes);
    blobs[n].assign(bytes, bytes + got.value->data.bo.size);
  }
  if (const pmix_status_t rc = PMIx_Finalize(nullptr, 0); rc != PMIX_SUCCESS) {
    warn("PMIx_Finalize after the wire-up failed: %s", PMIx_Error_string(rc));
  }
  return blobs;
}

}  // namespace dstd::rt::wireup
