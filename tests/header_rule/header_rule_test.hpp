// The two halves of the header rule test (README.md); each returns whether
// its types behaved.
#pragma once

namespace header_rule {

bool std_first_works();
bool dstd_first_works();

}  // namespace header_rule
