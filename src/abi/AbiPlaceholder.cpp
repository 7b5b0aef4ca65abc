// The abi library is being built (issue 4); this translation unit keeps the library non-empty.
namespace ptxray::abi {
int abiLibraryVersion() { return 0; }
} // namespace ptxray::abi
