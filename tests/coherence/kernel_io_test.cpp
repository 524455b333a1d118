// System calls on another node's memory: a thread on the last node reads
// files, pipes and sockets into buffers main allocated on node 0, and
// writes them out from such buffers, through every interposed entry point
// (dstd/interpose/io.cpp) and the std streams above them; and opens,
// stats, renames and removes files by names main wrote
// (dstd/interpose/path.cpp), also through std::filesystem. The kernel
// cannot take dstd's page faults: before the bounce buffers, each of these
// failed with EFAULT at 2 and 4 nodes (and std::ifstream::read set
// failbit; std::ifstream of a path from main's list did not open). Results are checked on node 0 after the join, where the bytes
// the kernel wrote must have arrived like any other write. At 1 node the
// same calls go straight to glibc.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t length = 3 * 4096 + 123;  // several pages, not whole ones

std::vector<char> pattern(std::size_t n, int seed) {
  std::vector<char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 131 + seed);
  return v;
}

// Runs `f` on the last node (node 0 at 1 node) and waits for it.
void on_last_node(const std::function<void()>& f) {
  dstd::spawn_on(static_cast<dstd::node_id>(dstd::node_count() - 1), [&f] { f(); }).join();
}

// A file of this test's own, removed when the test ends.
struct temp_file {
  temp_file() {
    char name[] = "/tmp/dstd-kernel-io-XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    if (fd >= 0) close(fd);
    path = name;
  }
  ~temp_file() { std::remove(path.c_str()); }
  std::string path;
};

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Shared by the tests: a path short enough for any buffer, kept in
// node-private memory (a copy per node) so that only the buffers under
// test lie on node 0.
thread_local char path_here[64];
const char* local_copy(const std::string& path) {
  std::snprintf(path_here, sizeof path_here, "%s", path.c_str());
  return path_here;
}

// Program static data: on nodes other than 0 its pages are cache frames
// of node 0's copy.
char static_buffer[2 * 4096 + 77];

TEST(KernelIo, ReadAndPreadFillABufferHomedOnNodeZero) {
  temp_file file;
  const std::vector<char> want = pattern(length, 1);
  write_file(file.path, want);
  std::vector<char> got(length, 0);  // on node 0
  ssize_t first = -2, second = -2;
  int error = 0;
  on_last_node([&] {
    const int fd = open(local_copy(file.path), O_RDONLY);
    first = read(fd, got.data(), length / 2);
    if (first < 0) error = errno;
    second = pread(fd, got.data() + length / 2, length - length / 2, length / 2);
    if (second < 0) error = errno;
    close(fd);
  });
  EXPECT_EQ(first, ssize_t(length / 2)) << std::strerror(error);
  EXPECT_EQ(second, ssize_t(length - length / 2)) << std::strerror(error);
  EXPECT_EQ(got, want);
}

TEST(KernelIo, WriteAndPwriteSendABufferHomedOnNodeZero) {
  temp_file file;
  const std::vector<char> want = pattern(length, 2);  // on node 0
  ssize_t first = -2, second = -2;
  int error = 0;
  on_last_node([&] {
    const int fd = open(local_copy(file.path), O_WRONLY | O_TRUNC);
    first = write(fd, want.data(), length / 2);
    if (first < 0) error = errno;
    second = pwrite(fd, want.data() + length / 2, length - length / 2, length / 2);
    if (second < 0) error = errno;
    close(fd);
  });
  EXPECT_EQ(first, ssize_t(length / 2)) << std::strerror(error);
  EXPECT_EQ(second, ssize_t(length - length / 2)) << std::strerror(error);
  EXPECT_EQ(read_file(file.path), want);
}

TEST(KernelIo, ReadvAndWritevMixLocalAndRemoteBuffers) {
  const std::vector<char> remote_out = pattern(length, 3);  // on node 0
  std::vector<char> remote_in(length, 0);                   // on node 0
  std::vector<char> local_seen;
  ssize_t wrote = -2, got = -2;
  on_last_node([&] {
    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) return;  // a failed write fails the read, no hang
    std::vector<char> local_out = pattern(100, 4), local_in(100, 0);  // on this node
    const iovec out[] = {{const_cast<char*>(remote_out.data()), length}, {local_out.data(), 100}};
    wrote = writev(p[1], out, 2);
    const iovec in[] = {{local_in.data(), 100}, {remote_in.data(), length}};
    got = readv(p[0], in, 2);
    local_seen = local_in;
    close(p[0]);
    close(p[1]);
  });
  EXPECT_EQ(wrote, ssize_t(length + 100));
  EXPECT_EQ(got, ssize_t(length + 100));
  // The pipe's bytes in order: remote_out, then local_out, read back as
  // the first 100 into local_in and the rest into remote_in.
  std::vector<char> stream = remote_out;
  const std::vector<char> tail = pattern(100, 4);
  stream.insert(stream.end(), tail.begin(), tail.end());
  EXPECT_EQ(local_seen, std::vector<char>(stream.begin(), stream.begin() + 100));
  EXPECT_EQ(remote_in, std::vector<char>(stream.begin() + 100, stream.end()));
}

TEST(KernelIo, PreadvAndPwritevAtAnOffset) {
  temp_file file;
  const std::vector<char> want = pattern(length, 5);
  std::vector<char> got(length, 0);
  ssize_t wrote = -2, read_back = -2;
  on_last_node([&] {
    const int fd = open(local_copy(file.path), O_RDWR | O_TRUNC);
    const iovec out{const_cast<char*>(want.data()), length};
    wrote = pwritev(fd, &out, 1, 10);
    const iovec in{got.data(), length};
    read_back = preadv(fd, &in, 1, 10);
    close(fd);
  });
  EXPECT_EQ(wrote, ssize_t(length));
  EXPECT_EQ(read_back, ssize_t(length));
  EXPECT_EQ(got, want);
}

TEST(KernelIo, AStaticArrayIsFilledFromAPipe) {
  const std::vector<char> want = pattern(sizeof static_buffer, 6);
  std::memset(static_buffer, 0, sizeof static_buffer);
  ssize_t got = -2;
  on_last_node([&] {
    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) return;  // a failed write fails the read, no hang
    const std::vector<char> local = pattern(sizeof static_buffer, 6);
    if (write(p[1], local.data(), local.size()) != ssize_t(local.size())) return;
    got = read(p[0], static_buffer, sizeof static_buffer);
    close(p[0]);
    close(p[1]);
  });
  EXPECT_EQ(got, ssize_t(sizeof static_buffer));
  EXPECT_EQ(std::memcmp(static_buffer, want.data(), want.size()), 0);
}

TEST(KernelIo, DatagramsKeepTheirBoundariesAndTruncation) {
  const std::vector<char> message = pattern(1000, 7);  // on node 0
  std::vector<char> whole(2000, 0), cut(10, 0), by_msg(1000, 0), from_recvfrom(1000, 0);
  ssize_t sent = -2, sent_to = -2, sent_msg = -2, got_whole = -2, got_cut = -2, got_msg = -2,
          got_from = -2;
  int msg_flags = 0;
  on_last_node([&] {
    int s[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, s) != 0) return;
    sent = send(s[0], message.data(), message.size(), 0);
    got_whole = recv(s[1], whole.data(), whole.size(), 0);
    sent_to = sendto(s[0], message.data(), message.size(), 0, nullptr, 0);
    got_cut = recv(s[1], cut.data(), cut.size(), MSG_TRUNC);  // answers the whole length
    iovec out{const_cast<char*>(message.data()), message.size()};
    msghdr m{};
    m.msg_iov = &out;
    m.msg_iovlen = 1;
    sent_msg = sendmsg(s[0], &m, 0);
    iovec in{by_msg.data(), 600};  // shorter than the datagram
    msghdr r{};
    r.msg_iov = &in;
    r.msg_iovlen = 1;
    got_msg = recvmsg(s[1], &r, 0);
    msg_flags = r.msg_flags;
    if (send(s[0], message.data(), message.size(), 0) == ssize_t(message.size())) {
      got_from = recvfrom(s[1], from_recvfrom.data(), from_recvfrom.size(), 0, nullptr, nullptr);
    }
    close(s[0]);
    close(s[1]);
  });
  EXPECT_EQ(sent, 1000);
  EXPECT_EQ(sent_to, 1000);
  EXPECT_EQ(sent_msg, 1000);
  EXPECT_EQ(got_whole, 1000);
  EXPECT_EQ(std::vector<char>(whole.begin(), whole.begin() + 1000), message);
  EXPECT_EQ(std::vector<char>(whole.begin() + 1000, whole.end()), std::vector<char>(1000, 0));
  EXPECT_EQ(got_cut, 1000);
  EXPECT_EQ(cut, std::vector<char>(message.begin(), message.begin() + 10));
  EXPECT_EQ(got_msg, 600);
  EXPECT_TRUE(msg_flags & MSG_TRUNC);
  EXPECT_EQ(std::vector<char>(by_msg.begin(), by_msg.begin() + 600),
            std::vector<char>(message.begin(), message.begin() + 600));
  EXPECT_EQ(std::vector<char>(by_msg.begin() + 600, by_msg.end()), std::vector<char>(400, 0));
  EXPECT_EQ(got_from, 1000);
  EXPECT_EQ(from_recvfrom, message);
}

TEST(KernelIo, StreamsReadAndWriteBuffersHomedOnNodeZero) {
  temp_file in_file, out_file, stdio_file;
  const std::vector<char> want = pattern(length, 8);
  write_file(in_file.path, want);
  std::vector<char> by_ifstream(length, 0), by_fread(length, 0);
  const std::string line(3 * BUFSIZ, 'x');  // longer than stdio's buffer: passed to the kernel
  bool read_ok = false, wrote_ok = false;
  std::size_t fread_items = 0, fwrite_items = 0;
  int fputs_result = EOF;
  on_last_node([&] {
    std::ifstream in(local_copy(in_file.path), std::ios::binary);
    read_ok = bool(in.read(by_ifstream.data(), std::streamsize(length)));
    std::ofstream out(local_copy(out_file.path), std::ios::binary | std::ios::trunc);
    wrote_ok = bool(out.write(want.data(), std::streamsize(length)));
    out.close();
    FILE* f = std::fopen(local_copy(stdio_file.path), "w+");
    if (f == nullptr) return;
    fwrite_items = std::fwrite(want.data(), 1, length, f);
    fputs_result = std::fputs(line.c_str(), f);
    std::fflush(f);
    std::rewind(f);
    fread_items = std::fread(by_fread.data(), 1, length, f);
    std::fclose(f);
  });
  EXPECT_TRUE(read_ok);
  EXPECT_EQ(by_ifstream, want);
  EXPECT_TRUE(wrote_ok);
  EXPECT_EQ(read_file(out_file.path), want);
  EXPECT_EQ(fwrite_items, length);
  EXPECT_NE(fputs_result, EOF);
  EXPECT_EQ(fread_items, length);
  EXPECT_EQ(by_fread, want);
  std::vector<char> stdio_want = want;
  stdio_want.insert(stdio_want.end(), line.begin(), line.end());
  EXPECT_EQ(read_file(stdio_file.path), stdio_want);
}

TEST(KernelIo, ErrorsAreTheKernelsOwn) {
  std::vector<char> buffer(length, 0);  // on node 0
  int bad_fd = 0, would_block = 0, not_socket = 0;
  ssize_t bad_fd_r = 0, would_block_r = 0, not_socket_r = 0;
  on_last_node([&] {
    bad_fd_r = read(-1, buffer.data(), length);
    bad_fd = errno;
    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) return;
    would_block_r = read(p[0], buffer.data(), length);
    would_block = errno;
    not_socket_r = recv(p[0], buffer.data(), length, 0);
    not_socket = errno;
    close(p[0]);
    close(p[1]);
  });
  EXPECT_EQ(bad_fd_r, -1);
  EXPECT_EQ(bad_fd, EBADF);
  EXPECT_EQ(would_block_r, -1);
  EXPECT_EQ(would_block, EAGAIN);
  EXPECT_EQ(not_socket_r, -1);
  EXPECT_EQ(not_socket, ENOTSOCK);
  EXPECT_EQ(buffer, std::vector<char>(length, 0));
}

// Every thread of every node (three a node, more than its workers) fills
// its own 64-byte chunks of pages homed on node 0 with preadv, round after
// round, while the node's other threads and other nodes fill the chunks
// between them and flush: the bytes the kernel read must survive other
// writers' diffs, and each thread must see its own last round. A mutex
// between rounds makes every node release and acquire all the time.
TEST(KernelIo, ChunksFilledByTheKernelSurviveOtherWritersOfTheirPages) {
  constexpr std::size_t chunk = 64, chunks_per_thread = 32;
  constexpr int rounds = 20;
  const std::size_t threads = 3 * dstd::node_count();
  const std::size_t block = chunk * chunks_per_thread;  // one thread's bytes of one round
  auto byte_of = [](std::size_t round, std::size_t thread, std::size_t k) {
    return static_cast<char>(round * 31 + thread * 7 + k);
  };
  temp_file file;
  std::vector<char> contents(rounds * threads * block);
  for (std::size_t r = 0; r < std::size_t(rounds); ++r) {
    for (std::size_t t = 0; t < threads; ++t) {
      for (std::size_t k = 0; k < block; ++k) contents[(r * threads + t) * block + k] = byte_of(r, t, k);
    }
  }
  write_file(file.path, contents);
  std::vector<char> shared(threads * block, 0);  // chunk c belongs to thread c % threads
  dstd::mutex m;
  std::vector<int> failures(threads, 0);
  std::vector<dstd::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.push_back(dstd::spawn_on(static_cast<dstd::node_id>(t % dstd::node_count()), [&, t] {
      const int fd = open(local_copy(file.path), O_RDONLY);
      std::vector<iovec> mine(chunks_per_thread);
      for (std::size_t i = 0; i < chunks_per_thread; ++i) {
        mine[i] = {shared.data() + (i * threads + t) * chunk, chunk};
      }
      for (std::size_t r = 0; r < std::size_t(rounds); ++r) {
        const auto offset = static_cast<off_t>((r * threads + t) * block);
        if (preadv(fd, mine.data(), int(mine.size()), offset) != ssize_t(block)) ++failures[t];
        { std::lock_guard<dstd::mutex> g(m); }
        for (std::size_t k = 0; k < block; ++k) {  // still this round's, after others' flushes
          if (shared[(k / chunk * threads + t) * chunk + k % chunk] != byte_of(r, t, k)) {
            ++failures[t];
            break;
          }
        }
      }
      close(fd);
    }));
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures, std::vector<int>(threads, 0));
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < threads; ++t) {
    for (std::size_t k = 0; k < block; ++k) {
      if (shared[(k / chunk * threads + t) * chunk + k % chunk] != byte_of(rounds - 1, t, k)) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// Path names on pages of node 0 that no code on another node has touched
// (one page each), so the kernel is the first to read them there.
class names_on_their_own_pages {
 public:
  explicit names_on_their_own_pages(const std::vector<std::string>& names)
      : bytes_(names.size() * 4096 + 4096, 0) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::snprintf(at(i), 4096, "%s", names[i].c_str());
    }
  }
  char* at(std::size_t i) {
    const auto base = (reinterpret_cast<std::uintptr_t>(bytes_.data()) + 4095) & ~std::uintptr_t{4095};
    return reinterpret_cast<char*>(base) + i * 4096;
  }

 private:
  std::vector<char> bytes_;
};

TEST(KernelIo, PathNamesHomedOnNodeZero) {
  char dir_template[] = "/tmp/dstd-kernel-io-dir-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::vector<char> content = pattern(5000, 9);
  write_file(dir + "/a-file-whose-name-is-longer-than-a-short-string", content);
  names_on_their_own_pages names({dir + "/a-file-whose-name-is-longer-than-a-short-string",
                                  dir + "/the-same-file-after-a-rename",
                                  dir + "/a-directory-made-on-another-node",
                                  dir + "/a-symbolic-link-to-the-renamed-file"});
  std::vector<struct stat> status(1);  // on node 0, filled by the kernel's stat
  std::vector<char> link_target(200, 0);
  int open_fd = -2, access_r = -2, stat_r = -2, mkdir_r = -2, rename_r = -2, symlink_r = -2,
      unlink_r = -2, remove_r = -2, rmdir_r = -2, errors = 0;
  bool fopen_ok = false, ifstream_ok = false, opendir_ok = false;
  ssize_t readlink_r = -2;
  on_last_node([&] {
    const int fd = open(names.at(0), O_RDONLY);
    open_fd = fd >= 0 ? 0 : errno;
    if (fd >= 0) close(fd);
    if (FILE* f = std::fopen(names.at(0), "r")) {
      fopen_ok = true;
      std::fclose(f);
    }
    ifstream_ok = std::ifstream(names.at(0)).is_open();
    access_r = access(names.at(0), R_OK);
    stat_r = stat(names.at(0), status.data());
    mkdir_r = mkdir(names.at(2), 0700);
    if (DIR* d = opendir(names.at(2))) {
      opendir_ok = true;
      closedir(d);
    }
    rename_r = rename(names.at(0), names.at(1));
    symlink_r = symlink(names.at(1), names.at(3));
    readlink_r = readlink(names.at(3), link_target.data(), link_target.size());
    unlink_r = unlink(names.at(3));
    remove_r = std::remove(names.at(1));
    rmdir_r = rmdir(names.at(2));
    errors = errno;
  });
  EXPECT_EQ(open_fd, 0) << std::strerror(open_fd);
  EXPECT_TRUE(fopen_ok);
  EXPECT_TRUE(ifstream_ok);
  EXPECT_EQ(access_r, 0);
  EXPECT_EQ(stat_r, 0);
  EXPECT_EQ(status[0].st_size, off_t(content.size()));
  EXPECT_EQ(mkdir_r, 0);
  EXPECT_TRUE(opendir_ok);
  EXPECT_EQ(rename_r, 0);
  EXPECT_EQ(symlink_r, 0);
  const std::string renamed = dir + "/the-same-file-after-a-rename";
  EXPECT_EQ(readlink_r, ssize_t(renamed.size()));
  EXPECT_EQ(std::string(link_target.data()), renamed);  // only the answer's bytes were copied
  EXPECT_EQ(unlink_r, 0);
  EXPECT_EQ(remove_r, 0);
  EXPECT_EQ(rmdir_r, 0) << std::strerror(errors);
  EXPECT_FALSE(std::filesystem::exists(renamed));
  EXPECT_EQ(rmdir(dir.c_str()), 0);  // empty: everything made on the other node is gone
}

TEST(KernelIo, FilesystemPathsHomedOnNodeZero) {
  char dir_template[] = "/tmp/dstd-kernel-io-fs-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  namespace fs = std::filesystem;
  const fs::path root = dir_template;
  const fs::path sub = root / "a-subdirectory-made-by-a-thread-on-another-node";
  const fs::path file = sub / "a-file-written-there-and-renamed-afterwards.txt";
  const fs::path moved = root / "the-file-once-moved-up-to-the-parent-directory.txt";
  bool made = false, existed = false, moved_ok = false;
  std::uintmax_t size = 0;
  std::error_code error;
  on_last_node([&] {
    made = fs::create_directory(sub, error);
    std::ofstream(file) << "twelve bytes";
    existed = fs::exists(file, error);
    size = fs::file_size(file, error);
    fs::rename(file, moved, error);
    moved_ok = !error && fs::exists(moved, error);
  });
  EXPECT_TRUE(made);
  EXPECT_TRUE(existed);
  EXPECT_EQ(size, 12u);
  EXPECT_TRUE(moved_ok) << error.message();
  EXPECT_EQ(read_file(moved.string()), std::vector<char>({'t', 'w', 'e', 'l', 'v', 'e', ' ', 'b',
                                                          'y', 't', 'e', 's'}));
  fs::remove_all(root);
}

}  // namespace
