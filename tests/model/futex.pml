/*
 * futex.pml -- SPIN model of dstd's cluster futex (runtime/sync/
 * home_futex.cpp, docs/DESIGN.md s.5.3) with the park/unpark handshake it
 * blocks on (runtime/sched/scheduler.cpp, DESIGN s.5.1) and the mutex built
 * on it (include/dstd/bits/lock_word.hpp).  tests/model/README.md explains
 * how to run it; run_spin.sh does.
 *
 * What is modelled
 * ----------------
 * 3 nodes.  One futex word w, homed on node 0, with its wait queue (the
 * wait table's deque for w) at node 0.  Thread t (t = 0, 1, 2) runs on
 * node t: thread 0 is a waiter and waker on the home node (local path:
 * it takes the wait-table lock itself), threads 1 and 2 reach the home
 * through messages.  Every node has a service thread: node 0's runs the
 * futex_wait / futex_cancel / futex_wake handlers, nodes 1 and 2's run
 * futex_woken and complete their threads' calls (a reply travels on the
 * same ring as the woken messages, so it is handled in the same order).
 * Channels: one FIFO per ordered pair (node -> home, home -> node), as the
 * shm rings give; several threads of one node may post to the same ring
 * (node 0's thread 0 and its service thread both post woken messages and
 * replies to nodes 1 and 2).  Word operations (CPU atomics at home,
 * transport atomics elsewhere) are single atomic steps; everything is
 * sequentially consistent (DESIGN s.5.1: every park-state access is
 * seq_cst).
 *
 * Runtime functions mirrored
 *   enqueue_if_unchanged  -> one atomic step under the wait-table lock:
 *                            compare w with `expected`, push the entry
 *                            (home thread directly; service thread for
 *                            a futex_wait call, then the reply)
 *   dequeue               -> one atomic step: remove the entry if present
 *                            (futex_cancel call, or directly at home)
 *   wake_at_home          -> wake_pop (one step under the lock: pop up to
 *                            n entries into a local list), then
 *                            wake_deliver (for each: mark_woken if the
 *                            waiter is on node 0, else post futex_woken)
 *   on_woken, mark_woken  -> flag := 1 (one step), then unpark
 *   wait_impl             -> futex_wait: queue_me, then loop on the flag:
 *                            park (untimed) or park_until, and on timeout
 *                            unqueue_me; if a wake took the entry, park
 *                            until the flag is set
 *   wake                  -> wake: wake_at_home at home, else post
 *                            futex_wake (no waiting)
 *   sched::park, unpark, the worker's half of park (worker_loop),
 *   park_until (timer registration, erase after), the timers
 *                         -> park, unpark, park_until, proctype timer
 *   park_thread (a waiter that runs no fiber: main before run_main_on_
 *   fiber, a plain std::thread) -> park with OS_THREADS
 *   lock_word take / take_until / give, wait_while_equal(_until)
 *                         -> lock_take, lock_give (try CAS 0->1; loop
 *                            exchange(2) != 0: give up if timed and past
 *                            the deadline; load w, futex wait if still 2;
 *                            give: exchange(0) == 2 -> wake(1))
 *   latch count_down / wait (-DLATCH) -> latch_arrive_and_wait
 *
 * The park state of each waiter is the scheduler's: RUNNING, PARKING
 * (switching away to its worker), PARKED, NOTIFIED (one permit), DEAD
 * (finished).  A PARKED fiber runs again once an unpark has moved it to
 * RUNNING (make_ready).  A timer: the deadline passes at any moment while
 * a timed call is in progress (expired[t]); a worker then takes the
 * fiber's timer if it is registered (armed[t]) and unparks the fiber, so a
 * timer's unpark may land late, in a later park (a spurious wake-up).
 *
 * Clients (default: the mutex)
 *   Each thread runs NCS rounds of lock; critical section; unlock on one
 *   lock_word (w: 0 free, 1 held, 2 held and maybe waited for).  Threads
 *   in TIMED (a bit mask, default thread 1) use take_until, which may give
 *   up, instead of take.  Threads in OS_THREADS (mask, default none) park
 *   as plain threads (park_thread) instead of fibers.
 *   -DLATCH: instead, a latch of count 3: every thread counts down once
 *   (the last one wakes all), then waits until the count is 0; a thread
 *   in TIMED gives up at its deadline (as the timed waits of semaphores
 *   and condition variables do; std::latch has none).
 *
 * Properties
 *   P1  mutual exclusion (assertion in the critical section);
 *   P2  no lost wake-up: pan's invalid-end-state check (every thread must
 *       finish; a thread parked forever, waiting for a wake that is not
 *       coming, is a deadlock; service threads and timers may wait for
 *       ever: end labels);
 *   P3  a woken flag is only written into a live frame: assert(live[t])
 *       when the flag is written.  A waiter's frame (its flag) is reused
 *       by its next wait (same stack address), so also: when a wait
 *       starts, nothing may still refer to the frame of the previous one
 *       (no queue entry, no taken entry, no woken message in flight:
 *       ghost ref[t]).
 *
 * Options (spin -DNAME)
 *   NCS=n            mutex rounds per thread (default 1); NCS0, NCS1,
 *                    NCS2 set one thread's
 *   TIMED=mask       threads that use take_until (default 2: thread 1)
 *   OS_THREADS=mask  threads that park as non-fiber threads (default 0)
 *                    (TIMED and OS_THREADS: default 6 with
 *                    SAME_STACK_ADDRESS)
 *   LATCH            the latch client instead of the mutex
 *   SAME_STACK_ADDRESS  threads 1 and 2 are plain std::threads (not
 *                    fibers, whose stacks are global addresses) whose
 *                    stacks sit at the same virtual address on their two
 *                    nodes (dstdrun turns address-space randomization off):
 *                    their flags have the same address. dequeue (as in
 *                    home_futex.cpp) matches an entry's waiter as well as
 *                    its flag (waiter objects are global-heap addresses,
 *                    unique cluster-wide), so this is correct.
 * Options: deliberately broken protocols (SPIN must find an error)
 *   BUG_DEQUEUE_BY_FLAG_ONLY with SAME_STACK_ADDRESS: dequeue finds the
 *                            entry by its flag address alone (the defect
 *                            this model found in home_futex.cpp, README.md)
 *   BUG_CHECK_OUTSIDE_LOCK   the home compares the word, then enqueues in
 *                            a separate step (a wake can run in between)
 *   BUG_WAKE_BEFORE_CHANGE   unlock wakes one waiter first, and only then
 *                            stores 0 (a waiter that is not yet queued is
 *                            missed; one woken too early re-queues on 2)
 *   BUG_TIMEOUT_RETURNS_AT_ONCE  a timed-out waiter whose cancel finds the
 *                            entry gone (a wake took it) returns at once
 *                            instead of waiting for the flag
 *   BUG_NO_PERMIT            unpark of a RUNNING waiter is dropped (no
 *                            NOTIFIED permit)
 *   BUG_UNPARK_BEFORE_FLAG   mark_woken unparks first, then sets the flag
 *
 * Step granularity: a step holds at most one access to a shared variable
 * that is not protected by a lock, plus local work; a critical section of
 * the wait-table lock touches only the table and one load of w, so it is
 * one step (lock: right mover, unlock: left mover).  Receiving a message
 * (one consumer per channel) is a right mover and is merged with what the
 * handler does next; sends are not merged with what follows, since two
 * threads of node 0 post to the same rings.  The ghosts (live, ref, incs)
 * and the timer's view of a call (tactive: it has a deadline) are set in
 * whatever step is nearest; nothing but the timer reads tactive.
 */

/* ---------------------------------------------------------------- bounds */
#ifndef NCS
#define NCS 1           /* mutex rounds per thread                        */
#endif
#ifndef NCS0
#define NCS0 NCS        /* ... of thread 0 (on the home node)             */
#endif
#ifndef NCS1
#define NCS1 NCS
#endif
#ifndef NCS2
#define NCS2 NCS
#endif
#define ROUNDS(t) ((t) == 0 -> NCS0 : ((t) == 1 -> NCS1 : NCS2))
#ifndef TIMED
#ifdef SAME_STACK_ADDRESS
#define TIMED 6         /* threads 1 and 2 */
#else
#define TIMED 2         /* thread 1 */
#endif
#endif
#ifndef OS_THREADS
#ifdef SAME_STACK_ADDRESS
#define OS_THREADS 6
#else
#define OS_THREADS 0
#endif
#endif

#define NN 3            /* nodes                                          */
#define NT 3            /* threads; thread t runs on node t               */
#define HOME 0          /* the word's home                                */
#define NODE(t) (t)
#define CAP 4           /* ring capacity in messages (never reached)      */
#define ALL 255         /* wake count: all                                */

/* The address of thread t's flag, as the home compares it in dequeue. */
#ifdef SAME_STACK_ADDRESS
#define FLAGADDR(t) ((t) == 2 -> 1 : (t))
#else
#define FLAGADDR(t) (t)
#endif

/* Park states (scheduler.cpp). */
#define RUNNING  0
#define PARKING  1
#define PARKED   2
#define NOTIFIED 3
#define DEAD     4

/* Messages: type, thread, argument. */
#define M_WAIT   1      /* node -> home: futex_wait call, arg = expected  */
#define M_CANCEL 2      /* node -> home: futex_cancel call                */
#define M_WAKE   3      /* node -> home: futex_wake, arg = count          */
#define M_REPLY  4      /* home -> node: reply to thread's call, arg      */
#define M_WOKEN  5      /* home -> node: futex_woken for thread           */

chan c2h[NN] = [CAP] of { byte, byte, byte };   /* node n -> home (n > 0) */
chan h2c[NN] = [CAP] of { byte, byte, byte };   /* home -> node n (n > 0) */

byte w;                 /* the futex word (the lock word / latch count)   */
byte q[NT];             /* its wait queue at the home: threads, oldest    */
byte qlen;              /* first                                          */

byte pst[NT];           /* park states                                    */
bit  flag[NT];          /* the woken flag in thread t's current wait frame */
byte reply[NT];         /* a call's reply, + 1 (0: none yet)              */
bit  tactive[NT];       /* a timed call is running (it has a deadline)    */
bit  expired[NT];       /* ... and its deadline has passed                */
bit  armed[NT];         /* the fiber's timer is registered                */

bit  live[NT];          /* ghost: thread t is inside a wait (its frame)   */
bit  ref[NT];           /* ghost: something refers to t's frame: a queue  */
                        /* entry, a taken entry, a woken message          */
bit  incs;              /* ghost: a thread is in the critical section     */

/* ------------------------------------------------------ park and unpark */

/* sched::unpark(u): one CAS loop, so one atomic step. */
inline unpark(u)
{
  atomic {
    if
    :: pst[u] == PARKED -> pst[u] = RUNNING     /* make_ready / futex wake */
    :: pst[u] == NOTIFIED || pst[u] == DEAD -> skip
#ifdef BUG_NO_PERMIT
    :: pst[u] == RUNNING -> skip                /* the permit is dropped   */
    :: pst[u] == PARKING -> pst[u] = NOTIFIED
#else
    :: pst[u] == RUNNING || pst[u] == PARKING -> pst[u] = NOTIFIED
#endif
    fi
  }
}

/* sched::park() of thread t (locals: pk, os). */
inline park()
{
  if
  :: !os ->
     /* the fiber: CAS running -> parking, or consume the permit */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKING; pk = 1
       :: else -> pst[t] = RUNNING                /* exchange(running)    */
       fi
     };
     if
     :: pk ->
        /* its worker (worker_loop): CAS parking -> parked, or, if an
         * unpark came while it was switching, requeue it; a parked fiber
         * runs again once unparked */
        atomic {
          pk = 0;
          if
          :: pst[t] == PARKING -> pst[t] = PARKED; pst[t] != PARKED
          :: else -> pst[t] = RUNNING
          fi
        }
     :: else
     fi
  :: os ->
     /* park_thread: CAS running -> parked, or consume the permit; sleep
      * while parked */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKED; pst[t] != PARKED
       :: else -> pst[t] = RUNNING
       fi
     }
  fi
}

/* sched::park_until(deadline) of thread t. */
inline park_until()
{
  if
  :: !os ->
     if
     :: expired[t] -> skip                      /* now >= deadline         */
     :: else ->
        armed[t] = 1;                           /* timers.emplace          */
        park();
        armed[t] = 0                            /* erase it if still there */
     fi
  :: os ->
     /* park_thread(timed): sleep while parked and before the deadline;
      * then CAS parked -> running (an unpark may have come first) */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKED; pk = 1
       :: else -> pst[t] = RUNNING
       fi
     };
     if
     :: pk ->
        atomic {
          pk = 0;
          pst[t] != PARKED || expired[t];
          if :: pst[t] == PARKED -> pst[t] = RUNNING :: else fi
        }
     :: else
     fi
  fi
}

/* The timers of thread t: its deadline passes at some moment of a timed
 * call; then a worker takes the fiber's timer, if registered, and unparks
 * the fiber (take_due_timers, then unpark, outside the lock). */
proctype timer(byte t)
{
end_timer:
  do
  :: atomic { tactive[t] && !expired[t] -> expired[t] = 1 }
  :: atomic { armed[t] && expired[t] -> armed[t] = 0 };
     unpark(t)
  od
}

/* ------------------------------------------------------ the wait table */

/* Under the wait-table lock. */
inline enqueue(u)
{
  q[qlen] = u; qlen++; ref[u] = 1
}

/* dequeue(word, waiter, flag): remove the entry whose waiter is u and whose
 * flag has u's flag's address (BUG_DEQUEUE_BY_FLAG_ONLY: the first entry
 * with that flag address); res = found. */
inline dequeue(u)
{
  res = 0; k = 0;
  do
  :: k < qlen && FLAGADDR(q[k]) == FLAGADDR(u) && !res ->
#ifndef BUG_DEQUEUE_BY_FLAG_ONLY
     if :: q[k] == u -> res = 1 :: else -> k++ fi
#else
     res = 1
#endif
  :: k < qlen && FLAGADDR(q[k]) != FLAGADDR(u) && !res -> k++
  :: k >= qlen || res -> break
  od;
  if
  :: res ->
     ref[q[k]] = 0;
     do
     :: k + 1 < qlen -> q[k] = q[k + 1]; k++
     :: else -> break
     od;
     qlen--; q[qlen] = 0
  :: else
  fi;
  k = 0
}

/* wake_at_home, the part under the lock: take up to cnt entries. */
inline wake_pop(cnt)
{
  k = 0;
  do
  :: k < cnt && qlen > 0 ->
     taken[ntaken] = q[0]; ntaken++;
     q[0] = q[1]; q[1] = q[2]; q[2] = 0;
     qlen--; k++
  :: else -> break
  od;
  k = 0
}

/* mark_woken on the waiter's node: the flag, then unpark. */
inline mark_woken(u)
{
#ifdef BUG_UNPARK_BEFORE_FLAG
  unpark(u);
  atomic { assert(live[u]); flag[u] = 1; ref[u] = 0 }
#else
  atomic { assert(live[u]); flag[u] = 1; ref[u] = 0 };
  unpark(u)
#endif
}

/* wake_at_home, after the lock: tell each taken waiter, in order. */
inline wake_deliver()
{
  k = 0;
  do
  :: k < ntaken && NODE(taken[k]) == HOME ->
     u = taken[k];
     mark_woken(u);
     atomic { taken[k] = 0; k++; u = 0 }
  :: atomic {
       k < ntaken && NODE(taken[k]) != HOME ->
       h2c[NODE(taken[k])] ! M_WOKEN, taken[k], 0;
       taken[k] = 0; k++
     }
  :: else -> break
  od;
  k = 0; ntaken = 0
}

/* ------------------------------------------------------- the home node */

/* Node 0's service thread: futex_wait, futex_cancel, futex_wake. */
proctype home_service()
{
  byte typ, t, a, res, k, u, ntaken;
  byte taken[NT];
  bit ok;
end_home:
  do
  :: atomic {
       if
       :: c2h[1] ? typ, t, a
       :: c2h[2] ? typ, t, a
       fi;
       if
       :: typ == M_WAIT ->                      /* on_wait               */
#ifdef BUG_CHECK_OUTSIDE_LOCK
          ok = (w == a)
#else
          if
          :: w == a -> enqueue(t); res = 1
          :: else -> res = 0
          fi
#endif
       :: typ == M_CANCEL -> dequeue(t)         /* on_cancel             */
       :: typ == M_WAKE -> wake_pop(a)          /* on_wake               */
       fi;
       a = 0
     };
#ifdef BUG_CHECK_OUTSIDE_LOCK
     if
     :: typ == M_WAIT -> atomic { if :: ok -> enqueue(t) :: else fi; res = ok; ok = 0 }
     :: else
     fi;
#endif
     if
     :: typ == M_WAKE -> wake_deliver(); atomic { typ = 0; t = 0 }
     :: else -> atomic { h2c[NODE(t)] ! M_REPLY, t, res; typ = 0; t = 0; res = 0 }
     fi
  od
}

/* Node n's service thread (n > 0): replies and futex_woken. */
proctype node_service(byte n)
{
  byte typ, t, a;
end_node:
  do
  :: atomic {
       h2c[n] ? typ, t, a;
       if
       :: typ == M_REPLY -> reply[t] = a + 1; typ = 0; t = 0; a = 0
       :: typ == M_WOKEN ->
#ifdef BUG_UNPARK_BEFORE_FLAG
          skip
#else
          assert(live[t]); flag[t] = 1; ref[t] = 0
#endif
       fi
     };
     if
     :: typ == M_WOKEN ->
#ifdef BUG_UNPARK_BEFORE_FLAG
        unpark(t);
        atomic { assert(live[t]); flag[t] = 1; ref[t] = 0 };
#else
        unpark(t);
#endif
        atomic { typ = 0; t = 0 }
     :: else
     fi
  od
}

/* ------------------------------------------------------------- waiters */

/* A transport call from thread t to the home: post, wait for the reply
 * (the caller blocks its worker: it does not park). */
inline call_home(typ_, arg_)
{
  c2h[n] ! typ_, t, arg_;
  atomic { reply[t] != 0 -> res = reply[t] - 1; reply[t] = 0 }
}

/* home_futex::wait / wait_until (wait_impl) of thread t on w. */
inline futex_wait(expected)
{
  atomic {                                      /* woken_flag flag{0}      */
    assert(!ref[t]);                            /* P3: frame reused        */
    live[t] = 1; flag[t] = 0
  };
  /* queue_me */
  if
  :: n == HOME ->
#ifdef BUG_CHECK_OUTSIDE_LOCK
     ok = (w == expected);
     atomic { if :: ok -> enqueue(t) :: else fi; res = ok; ok = 0 }
#else
     atomic {
       if
       :: w == expected -> enqueue(t); res = 1
       :: else -> res = 0
       fi
     }
#endif
  :: n != HOME -> call_home(M_WAIT, expected)
  fi;
  if
  :: res == 0                                   /* not queued: changed     */
  :: res == 1 ->
     res = 0;
     do
     :: flag[t] != 0 -> break                   /* woken                   */
     :: flag[t] == 0 && !timed -> park()
     :: flag[t] == 0 && timed ->
        park_until();
        if
        :: flag[t] != 0                         /* continue                */
        :: flag[t] == 0 ->
           if
           :: !expired[t]                       /* before the deadline     */
           :: expired[t] ->
              /* unqueue_me */
              if
              :: n == HOME -> atomic { dequeue(t) }
              :: n != HOME -> call_home(M_CANCEL, 0)
              fi;
              if
              :: res -> res = 0; break          /* timed out, off the queue */
              :: !res ->
#ifdef BUG_TIMEOUT_RETURNS_AT_ONCE
                 break
#else
                 /* a wake took us: wait for it to land */
                 do
                 :: flag[t] != 0 -> break
                 :: flag[t] == 0 -> park()
                 od;
                 break
#endif
              fi
           fi
        fi
     od
  fi;
  live[t] = 0                                   /* the frame is gone       */
}

/* home_futex::wake(w, cnt) by thread t. */
inline wake(cnt)
{
  if
  :: n == HOME -> atomic { wake_pop(cnt) }; wake_deliver()
  :: n != HOME -> c2h[n] ! M_WAKE, t, cnt
  fi
}

/* -------------------------------------------------------------- clients */

/* lock_word::take / take_until. */
inline lock_take()
{
  atomic {
    tactive[t] = timed;                         /* the deadline            */
    if :: w == 0 -> w = 1; got = 1 :: else fi   /* try_take: CAS 0 -> 1    */
  };
  do
  :: got -> break
  :: !got ->
     atomic { old = w; w = 2; got = (old == 0); old = 0 };   /* exchange(2) */
     if
     :: got -> break
     :: !got && timed && expired[t] -> break    /* now >= deadline: false  */
     :: !got && !(timed && expired[t]) ->
        /* wait_while_equal(_until)(w, 2): load w, wait if still 2 */
        if
        :: w == 2 -> futex_wait(2)
        :: else
        fi
     fi
  od;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

/* lock_word::give. */
inline lock_give()
{
#ifdef BUG_WAKE_BEFORE_CHANGE
  wake(1);                                      /* wake first (always) ... */
  w = 0                                         /* ... then free the word  */
#else
  atomic { old = w; w = 0 };                    /* exchange(0)             */
  if
  :: old == 2 -> old = 0; wake(1)
  :: else -> old = 0
  fi
#endif
}

/* latch::count_down(); latch::wait() (a timed thread: a wait that gives up
 * at its deadline, as semaphores' and condition variables' timed waits
 * do; std::latch has none). */
inline latch_arrive_and_wait()
{
  atomic { old = w; w = w - 1 };                /* fetch_sub(1)            */
  if
  :: old == 1 -> old = 0; wake(ALL)
  :: else -> old = 0
  fi;
  tactive[t] = timed;                           /* a timed wait's deadline */
  do
  :: atomic { w == 0 -> old = 0 }; break        /* load                    */
  :: atomic { w != 0 -> old = w };              /* load: c                 */
     if
     :: timed && expired[t] -> old = 0; break   /* give up                 */
     :: !(timed && expired[t]) ->
        if                                      /* wait_while_equal(_until)*/
        :: w == old -> futex_wait(old)          /* (w, c)                  */
        :: else
        fi
     fi
  od;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

proctype thread(byte t)
{
  byte n = NODE(t);
  bit timed = (TIMED >> t) & 1;
  bit os = (OS_THREADS >> t) & 1;
  byte old, res, k, u, ntaken, round;
  byte taken[NT];
  bit got, pk, ok;

#ifdef LATCH
  latch_arrive_and_wait();
#else
  round = 0;
  do
  :: round < ROUNDS(t) ->
     lock_take();
     if
     :: got ->
        atomic { assert(!incs); incs = 1 };     /* P1                      */
        incs = 0;
        lock_give();
        got = 0
     :: else                                    /* take_until timed out    */
     fi;
     round++
  :: else -> break
  od;
#endif
  pst[t] = DEAD                                 /* retire                  */
}

init
{
  atomic {
#ifdef LATCH
    w = NT;
#endif
    run home_service();
    run node_service(1);
    run node_service(2);
    run thread(0);
    run thread(1);
    run thread(2);
    if :: (TIMED & 1) -> run timer(0) :: else fi;
    if :: (TIMED & 2) -> run timer(1) :: else fi;
    if :: (TIMED & 4) -> run timer(2) :: else fi
  }
}
