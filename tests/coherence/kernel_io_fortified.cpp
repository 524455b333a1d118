// The fortified forms of the interposed calls (__read_chk, __open_2, …):
// this file is built with _FORTIFY_SOURCE=2 where optimization allows it,
// so that calls into static arrays, whose size the compiler knows, go to
// them instead of read() or open(). glibc's own __read_chk would call its
// read past libdstd's, and on another node the static arrays are cache
// frames of node 0's. In an unoptimized build (no fortification) the
// same test runs the plain calls again.
#if defined(__OPTIMIZE__) && !defined(_FORTIFY_SOURCE)
#define _FORTIFY_SOURCE 2
#endif
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <string>

namespace {

// In the program's static data: on nodes other than 0, cache frames.
char read_into[5000];
char pread_into[5000];
char recv_into[100];
char fread_into[5000];
char link_into[300];
char names[2][4096];  // a file's name and a link's, on pages of their own

// A length the compiler cannot see: with a constant one, fortification
// checks at compile time and calls the plain function.
std::size_t opaque(std::size_t n) {
  asm volatile("" : "+r"(n));
  return n;
}

TEST(KernelIoFortified, CallsIntoStaticArraysOfNodeZero) {
  std::snprintf(names[0], sizeof names[0], "/tmp/dstd-kernel-io-fortified-%d", getpid());
  std::snprintf(names[1], sizeof names[1], "/tmp/dstd-kernel-io-fortified-%d.link", getpid());
  {
    FILE* f = std::fopen(names[0], "w");
    ASSERT_NE(f, nullptr);
    for (int i = 0; i < 5000; ++i) std::fputc('a' + i % 26, f);
    std::fclose(f);
  }
  ASSERT_EQ(symlink(names[0], names[1]), 0);
  ssize_t read_r = -2, pread_r = -2, recv_r = -2, link_r = -2;
  std::size_t fread_r = 0;
  int open_r = -2;
  const int flags = O_RDONLY | (names[0][0] == '/' ? 0 : O_APPEND);  // not a constant: __open_2
  dstd::spawn_on(static_cast<dstd::node_id>(dstd::node_count() - 1), [&] {
    const int fd = open(names[0], flags);
    open_r = fd >= 0 ? 0 : errno;
    read_r = read(fd, read_into, opaque(sizeof read_into));
    pread_r = pread(fd, pread_into, opaque(sizeof pread_into), 0);
    close(fd);
    if (FILE* f = std::fopen(names[0], "r")) {
      fread_r = std::fread(fread_into, 1, opaque(sizeof fread_into), f);
      std::fclose(f);
    }
    link_r = readlink(names[1], link_into, opaque(sizeof link_into));
    int s[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, s) == 0) {
      if (send(s[0], "datagram", 8, 0) == 8) recv_r = recv(s[1], recv_into, opaque(sizeof recv_into), 0);
      close(s[0]);
      close(s[1]);
    }
  }).join();
  std::string want(5000, ' ');
  for (int i = 0; i < 5000; ++i) want[std::size_t(i)] = char('a' + i % 26);
  EXPECT_EQ(open_r, 0) << std::strerror(open_r);
  EXPECT_EQ(read_r, 5000);
  EXPECT_EQ(std::memcmp(read_into, want.data(), want.size()), 0);
  EXPECT_EQ(pread_r, 5000);
  EXPECT_EQ(std::memcmp(pread_into, want.data(), want.size()), 0);
  EXPECT_EQ(fread_r, 5000u);
  EXPECT_EQ(std::memcmp(fread_into, want.data(), want.size()), 0);
  EXPECT_EQ(link_r, ssize_t(std::strlen(names[0])));
  EXPECT_EQ(std::string(link_into, std::size_t(link_r > 0 ? link_r : 0)), std::string(names[0]));
  EXPECT_EQ(recv_r, 8);
  EXPECT_EQ(std::string(recv_into, 8), "datagram");
  unlink(names[1]);
  unlink(names[0]);
}

}  // namespace
