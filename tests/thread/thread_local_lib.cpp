// A shared library with a thread_local, for thread_local_test, which
// dlopens it: its storage is not in the static TLS area but allocated per
// thread by __tls_get_addr on first use, through the thread's dtv.
extern "C" int* thread_local_lib_counter() {
  static thread_local int counter = 0;
  return &counter;
}
