// A plugin built against another version of the interface: the lab must refuse it before reading
// anything else of it.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) uint32_t scalinglab_plugin_abi() { return 999; }
extern "C" __attribute__((visibility("default"))) const void* scalinglab_plugin() { return nullptr; }
