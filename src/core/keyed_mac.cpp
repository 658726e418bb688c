#include "scalinglab/core/keyed_mac.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace scalinglab {

std::string keyed_mac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), out, &n) ||
      n != kMacBytes)
    throw std::runtime_error("HMAC-SHA-256 failed");
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string digest_hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(data.data(), data.size(), out, &n, EVP_sha256(), nullptr) || n != 32)
    throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string text(2 * n, '0');
  for (unsigned int i = 0; i < n; ++i) {
    text[2 * i] = hex[out[i] >> 4];
    text[2 * i + 1] = hex[out[i] & 15];
  }
  return text;
}

bool same_mac(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace scalinglab
