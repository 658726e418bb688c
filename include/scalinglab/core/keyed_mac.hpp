#pragma once
// A keyed message authentication code: HMAC-SHA-256 (RFC 2104 over FIPS 180-4), computed by
// OpenSSL. A file signed with a key kept outside the folder it lives in cannot be edited, or
// replaced by another file, by whoever can write only the folder.
#include <string>
#include <string_view>

namespace scalinglab {

inline constexpr std::size_t kMacBytes = 32;

// The 32-byte HMAC-SHA-256 of `data` under `key`.
std::string keyed_mac(std::string_view key, std::string_view data);

// The SHA-256 of `data` as 64 lower-case hex digits: names content (a task cache entry, a world's file).
std::string digest_hex(std::string_view data);

// Whether two MACs are equal, in a time that does not depend on where they differ.
bool same_mac(std::string_view a, std::string_view b);

}  // namespace scalinglab
