// Whether a text is one JSON value, by RFC 8259's grammar: for the tests of
// the files dstd writes (dstdrun --trace, --stats=json), which other tools
// (ui.perfetto.dev, jq) must be able to read.
//
// Why a checker of our own: a test asserts "a JSON parser accepts this
// file" without depending on an interpreter or a JSON library being
// installed. It checks syntax only; tests read the values they need.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace dstd::test {

class json_checker {
 public:
  explicit json_checker(std::string_view text) : s_(text) {}

  // "" when the text is one JSON value (surrounded by white space), else
  // what is wrong and at which byte.
  std::string error() {
    skip_space();
    if (!value()) return problem_;
    skip_space();
    if (i_ != s_.size()) {
      fail("text after the value");
      return problem_;
    }
    return "";
  }

 private:
  bool fail(const char* what) {
    if (problem_.empty()) problem_ = std::string(what) + " at byte " + std::to_string(i_);
    return false;
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool take(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return fail("a bad literal");
    i_ += w.size();
    return true;
  }
  bool digits() {
    const std::size_t from = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > from || fail("a number without digits");
  }
  bool number() {
    take('-');
    if (!take('0') && !digits()) return false;
    if (take('.') && !digits()) return false;
    if (take('e') || take('E')) {
      if (!take('+')) take('-');
      if (!digits()) return false;
    }
    return true;
  }
  bool string() {
    if (!take('"')) return fail("a string expected");
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return fail("a control character in a string");
      if (c != '\\') continue;
      if (i_ >= s_.size()) break;
      const char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k) {
          if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_++]))) return fail("a bad \\u escape");
        }
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return fail("a bad escape");
      }
    }
    return fail("an unterminated string");
  }
  template <class Item>
  bool sequence(char close, Item item) {
    skip_space();
    if (take(close)) return true;
    for (;;) {
      skip_space();
      if (!item()) return false;
      skip_space();
      if (take(close)) return true;
      if (!take(',')) return fail("',' or the end of an array or object expected");
    }
  }
  bool value() {
    if (++depth_ > 512) return fail("nesting too deep");
    bool ok = false;
    if (i_ >= s_.size()) {
      ok = fail("a value expected");
    } else if (take('{')) {
      ok = sequence('}', [this] {
        if (!string()) return false;
        skip_space();
        if (!take(':')) return fail("':' expected");
        skip_space();
        return value();
      });
    } else if (take('[')) {
      ok = sequence(']', [this] { return value(); });
    } else if (s_[i_] == '"') {
      ok = string();
    } else if (s_[i_] == 't') {
      ok = word("true");
    } else if (s_[i_] == 'f') {
      ok = word("false");
    } else if (s_[i_] == 'n') {
      ok = word("null");
    } else if (s_[i_] == '-' || std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      ok = number();
    } else {
      ok = fail("a value expected");
    }
    --depth_;
    return ok;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int depth_ = 0;
  std::string problem_;
};

inline std::string json_syntax_error(std::string_view text) { return json_checker(text).error(); }

}  // namespace dstd::test
