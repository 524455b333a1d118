// The run's secret for remote nodes' lifelines (DSTD_LAUNCH_TOKEN).
//
// Why: dstdrun's lifeline port is open to the network for the whole run; a
// connection counts as node K's only if its first line carries this token,
// so a stray or hostile connection cannot claim to be a node, join it or
// say it left. 128 random bits from /dev/urandom, as 32 hex digits.
#pragma once

#include <string>

namespace dstd::launch {

// False (errno set) when /dev/urandom cannot be read.
bool make_launch_token(std::string& token);

}  // namespace dstd::launch
