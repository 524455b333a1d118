// fork() in a dstd node.
//
// The home partition (tcmalloc's heap included) is shared memory, so a
// forked child would otherwise keep writing into its parent's heap. The
// guard gives the child a private snapshot taken while the parent is held at
// the fork point with tcmalloc's locks taken, then takes the child out of
// the run (no transport, remote frees dropped).
//
// Order matters: the snapshot must happen before tcmalloc's own child
// handler unlocks anything, and the parent must wait for it before
// tcmalloc's parent handler does. glibc runs child and parent handlers in
// registration order, so libdstd defines pthread_atfork and registers the
// guard ahead of the first handler anyone registers (tcmalloc's).
//
// And the stack matters: main (and later every dstd thread) runs on a stack
// in the shared partition, where parent and child would overwrite each
// other's frames between the fork and the snapshot. So libdstd also defines
// fork(), which forks on a private stack (in libdstd's own .bss, which fork
// copies) and returns to the caller's stack only once the child has its
// snapshot.
#pragma once

namespace dstd::rt {

// What the guard does in the child after the snapshot (set by boot).
void set_fork_child_hook(void (*hook)());

}  // namespace dstd::rt
