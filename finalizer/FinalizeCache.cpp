//===- finalizer/FinalizeCache.cpp - Code objects kept across finalizations
//===//
#include "finalizer/FinalizeCache.h"

#include "finalizer/Codegen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace openhsa::finalizer {

namespace {

/// Bumped when the key's contents or the file layout change.
constexpr const char *KeyVersion = "openhsa-finalize-cache/1";
constexpr size_t MemoryLimitBytes = size_t(64) << 20;
constexpr uint64_t DefaultDiskLimitMiB = 256;
/// A cache file larger than this is not read (no code object is close).
constexpr uint64_t MaxFileBytes = uint64_t(1) << 30;
constexpr const char *FileSuffix = ".ohsaco";
/// Temporary files are <key>.ohsaco.tmp.<pid>.<n>; one this old belongs to
/// a writer that died.
constexpr const char *TemporaryInfix = ".ohsaco.tmp.";
constexpr int64_t AbandonedAfterSeconds = 600;

enum class Mode { Off, Memory, Disk };

Mode mode() {
  const char *E = std::getenv("OPENHSA_FINALIZER_CACHE");
  if (!E || !*E)
    return Mode::Disk;
  llvm::StringRef V(E);
  if (V == "0" || V.equals_insensitive("off"))
    return Mode::Off;
  if (V.equals_insensitive("memory"))
    return Mode::Memory;
  return Mode::Disk;
}

/// Settings that ask LLVM for output or change what it does: such a
/// finalization must run.
bool compilerOutputAsked() {
  for (const char *V :
       {"OPENHSA_DUMP_IR", "OPENHSA_DUMP_ASM", "OPENHSA_LLVM_ARGS"})
    if (const char *E = std::getenv(V); E && *E)
      return true;
  return false;
}

/// The file this code was loaded from (the runtime library, or a program
/// that links the finalizer statically), as path, size, modification time
/// and inode: a rebuilt or reinstalled finalizer makes new keys. Empty
/// where the file cannot be found: then nothing is kept on disk, where a
/// later build would take this one's code for its own.
const std::string &buildIdentity() {
  static const std::string Id = [] {
    Dl_info Info{};
    struct stat St {};
    if (!dladdr(reinterpret_cast<void *>(&finalizeCached), &Info) ||
        !Info.dli_fname || stat(Info.dli_fname, &St) != 0)
      return std::string();
    return std::string(Info.dli_fname) + ":" +
           std::to_string(uint64_t(St.st_size)) + ":" +
           std::to_string(int64_t(St.st_mtim.tv_sec)) + "." +
           std::to_string(int64_t(St.st_mtim.tv_nsec)) + ":" +
           std::to_string(uint64_t(St.st_ino));
  }();
  return Id;
}

/// Appends length-prefixed fields, so that no two different requests
/// serialize to the same bytes.
class KeyWriter {
public:
  void bytes(const void *P, size_t N) {
    const uint64_t Len = N;
    const auto *L = reinterpret_cast<const uint8_t *>(&Len);
    Buf.insert(Buf.end(), L, L + sizeof(Len));
    const auto *B = static_cast<const uint8_t *>(P);
    Buf.insert(Buf.end(), B, B + N);
  }
  void str(llvm::StringRef S) { bytes(S.data(), S.size()); }
  template <typename T> void num(T V) {
    const uint64_t X = uint64_t(V);
    bytes(&X, sizeof(X));
  }
  void env(const char *Name) {
    const char *E = std::getenv(Name);
    str(E ? llvm::StringRef(E) : llvm::StringRef("\x01unset"));
  }
  std::string key() const {
    const llvm::XXH128_hash_t H = llvm::xxh3_128bits(Buf);
    return llvm::utohexstr(H.high64, /*LowerCase=*/true, 16) +
           llvm::utohexstr(H.low64, /*LowerCase=*/true, 16);
  }

private:
  std::vector<uint8_t> Buf;
};

std::string keyOf(const FinalizeRequest &R) {
  KeyWriter K;
  K.str(KeyVersion);
  K.str(buildIdentity());
  K.str(LLVM_VERSION_STRING);
  const HostTarget &Host = hostTarget();
  K.str(Host.Triple);
  K.str(Host.Cpu);
  K.str(Host.Features);
  K.env("OPENHSA_VECTORIZE");
  K.env("OPENHSA_VECTOR_WIDTH");
  K.env("OPENHSA_PROMOTE_REGISTERS");
  K.env("OPENHSA_PREFETCH_GROUPS");
  K.env("OPENHSA_LOCKSTEP_GROUPS");
  K.env("OPENHSA_INTERLEAVE_PRIVATE");
  K.str(R.IsaName);
  K.num(R.MachineModel);
  K.num(R.Profile);
  K.num(R.DefaultFloatRounding);
  K.num(R.ProgramFloatRounding);
  const ControlDirectives &D = R.Directives;
  K.num(D.ControlDirectivesMask);
  K.num(D.BreakExceptions);
  K.num(D.DetectExceptions);
  K.num(D.MaxDynamicGroupSize);
  K.num(D.MaxFlatGridSize);
  K.num(D.MaxFlatWorkgroupSize);
  K.num(D.RequiredDim);
  for (unsigned I = 0; I < 3; ++I) {
    K.num(D.RequiredGridSize[I]);
    K.num(D.RequiredWorkgroupSize[I]);
  }
  K.str(R.Options);
  K.num(R.VectorWidth);
  K.num(R.DeferShapeVariantCode);
  K.num(R.DeferPartialWaveCode);
  K.num(R.GuardIndexWraps);
  K.num(R.Modules.size());
  for (const brig::BrigModule &M : R.Modules) {
    K.str(M.name());
    K.bytes(M.bytes().data(), M.bytes().size());
  }
  return K.key();
}

struct Counters {
  std::atomic<uint64_t> MemoryHits{0}, DiskHits{0}, Misses{0}, Bypassed{0},
      Stored{0}, Rejected{0}, Evicted{0};
};
Counters &counters() {
  static Counters *C = new Counters; // Finalizations may run at exit.
  return *C;
}

/// The in-process level: code objects as finalized or read back (checked
/// then), the oldest dropped first past MemoryLimitBytes of object code.
class MemoryLevel {
public:
  std::optional<CodeObject> find(const std::string &Key) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Entries.find(Key);
    if (It == Entries.end())
      return std::nullopt;
    return It->second;
  }
  void put(const std::string &Key, const CodeObject &CO) {
    if (CO.codeBytes() > MemoryLimitBytes)
      return;
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Entries.emplace(Key, CO).second)
      return;
    Total += CO.codeBytes();
    Order.push_back(Key);
    while (Total > MemoryLimitBytes && !Order.empty()) {
      auto It = Entries.find(Order.front());
      Total -= It->second.codeBytes();
      Entries.erase(It);
      Order.pop_front();
    }
  }
  void clear() {
    std::lock_guard<std::mutex> Lock(Mutex);
    Entries.clear();
    Order.clear();
    Total = 0;
  }

private:
  std::mutex Mutex;
  std::unordered_map<std::string, CodeObject> Entries;
  std::deque<std::string> Order;
  size_t Total = 0;
};
MemoryLevel &memory() {
  static MemoryLevel *M = new MemoryLevel;
  return *M;
}

/// Creates Dir and its parents, readable by this user alone: the cache
/// holds code this user's programs will run.
bool makeDirectories(const std::string &Dir) {
  return !llvm::sys::fs::create_directories(Dir, /*IgnoreExisting=*/true,
                                            llvm::sys::fs::owner_all) &&
         llvm::sys::fs::is_directory(Dir);
}

/// The cache file at Path, or null where there is none (or one too large
/// to be a code object).
std::unique_ptr<llvm::MemoryBuffer> readFile(const std::string &Path) {
  uint64_t Size = 0;
  if (llvm::sys::fs::file_size(Path, Size) || Size == 0 || Size > MaxFileBytes)
    return nullptr;
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return Buffer ? std::move(*Buffer) : nullptr;
}

/// Writes Bytes to Path through a file of this process's own in the same
/// directory, renamed over Path: readers see the old file or the new one.
bool writeFileAtomically(const std::string &Path,
                         const std::vector<uint8_t> &Bytes) {
  static std::atomic<uint64_t> Serial{0};
  const std::string Tmp = Path + ".tmp." + std::to_string(getpid()) + "." +
                          std::to_string(Serial.fetch_add(1));
  const int Fd =
      open(Tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (Fd < 0)
    return false;
  size_t Done = 0;
  while (Done < Bytes.size()) {
    const ssize_t N = write(Fd, Bytes.data() + Done, Bytes.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Done += size_t(N);
  }
  const bool Ok = close(Fd) == 0 && Done == Bytes.size();
  if (!Ok || rename(Tmp.c_str(), Path.c_str()) != 0) {
    unlink(Tmp.c_str());
    return false;
  }
  return true;
}

/// OPENHSA_CACHE_MAX_MB (a decimal number of MiB), else the default.
uint64_t diskLimitBytes() {
  double MiB = DefaultDiskLimitMiB;
  if (const char *E = std::getenv("OPENHSA_CACHE_MAX_MB"); E && *E) {
    char *End = nullptr;
    const double V = std::strtod(E, &End);
    if (End && *End == '\0' && V >= 0)
      MiB = V;
  }
  return uint64_t(MiB * double(1 << 20));
}

/// Removes the least recently used cache files (by modification time, which
/// a hit renews) until the directory holds at most the limit, and the
/// temporary files of writers that died before their rename (older than a
/// writer takes). Other processes may remove the same files meanwhile: a
/// file already gone is skipped.
void evictOldFiles(const std::string &Dir) {
  struct File {
    std::string Path;
    uint64_t Bytes;
    int64_t Sec, Nsec;
  };
  std::vector<File> Files;
  uint64_t Total = 0;
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return;
  const int64_t Now = int64_t(time(nullptr));
  while (const dirent *E = readdir(D)) {
    llvm::StringRef Name(E->d_name);
    const bool Temporary = Name.contains(TemporaryInfix);
    if (!Name.ends_with(FileSuffix) && !Temporary)
      continue;
    std::string Path = Dir + "/" + Name.str();
    struct stat St {};
    if (stat(Path.c_str(), &St) != 0 || !S_ISREG(St.st_mode))
      continue;
    if (Temporary) {
      if (Now - int64_t(St.st_mtim.tv_sec) > AbandonedAfterSeconds)
        unlink(Path.c_str());
      continue;
    }
    Files.push_back({std::move(Path), uint64_t(St.st_size),
                     int64_t(St.st_mtim.tv_sec), int64_t(St.st_mtim.tv_nsec)});
    Total += uint64_t(St.st_size);
  }
  closedir(D);
  const uint64_t Limit = diskLimitBytes();
  if (Total <= Limit)
    return;
  std::sort(Files.begin(), Files.end(), [](const File &A, const File &B) {
    return std::tie(A.Sec, A.Nsec) < std::tie(B.Sec, B.Nsec);
  });
  for (const File &F : Files) {
    if (Total <= Limit)
      break;
    if (unlink(F.Path.c_str()) == 0)
      counters().Evicted.fetch_add(1, std::memory_order_relaxed);
    Total -= F.Bytes;
  }
}

} // namespace

std::string finalizeCacheDirectory() {
  if (const char *E = std::getenv("OPENHSA_CACHE_DIR"); E && *E)
    return E;
  if (const char *E = std::getenv("XDG_CACHE_HOME"); E && *E && E[0] == '/')
    return std::string(E) + "/openhsa/finalizer";
  if (const char *E = std::getenv("HOME"); E && *E)
    return std::string(E) + "/.cache/openhsa/finalizer";
  return "";
}

llvm::Expected<CodeObject> finalizeCached(const FinalizeRequest &Request) {
  Counters &C = counters();
  const Mode M = mode();
  if (M == Mode::Off || compilerOutputAsked()) {
    C.Bypassed.fetch_add(1, std::memory_order_relaxed);
    return finalize(Request);
  }
  const std::string Key = keyOf(Request);
  if (std::optional<CodeObject> CO = memory().find(Key)) {
    C.MemoryHits.fetch_add(1, std::memory_order_relaxed);
    return std::move(*CO);
  }
  std::string Dir, Path;
  if (M == Mode::Disk && !buildIdentity().empty()) {
    Dir = finalizeCacheDirectory();
    if (!Dir.empty())
      Path = Dir + "/" + Key + FileSuffix;
  }
  if (!Path.empty()) {
    if (std::unique_ptr<llvm::MemoryBuffer> File = readFile(Path)) {
      if (auto CO = CodeObject::deserialize(
              llvm::arrayRefFromStringRef(File->getBuffer()))) {
        C.DiskHits.fetch_add(1, std::memory_order_relaxed);
        utimensat(AT_FDCWD, Path.c_str(), nullptr, 0); // Recently used.
        memory().put(Key, *CO);
        return CO;
      } else {
        // Torn by a crash, damaged, or from an incompatible version:
        // finalized again below and replaced.
        llvm::consumeError(CO.takeError());
        C.Rejected.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  C.Misses.fetch_add(1, std::memory_order_relaxed);
  auto CO = finalize(Request);
  if (!CO)
    return CO.takeError();
  // A cache that cannot be written (read-only home, full disk) only costs
  // the next process a finalization.
  if (!Path.empty() && makeDirectories(Dir) &&
      writeFileAtomically(Path, CO->serialize())) {
    C.Stored.fetch_add(1, std::memory_order_relaxed);
    evictOldFiles(Dir);
  }
  memory().put(Key, *CO);
  return CO;
}

FinalizeCacheStats finalizeCacheStats() {
  const Counters &C = counters();
  FinalizeCacheStats S;
  S.MemoryHits = C.MemoryHits.load(std::memory_order_relaxed);
  S.DiskHits = C.DiskHits.load(std::memory_order_relaxed);
  S.Misses = C.Misses.load(std::memory_order_relaxed);
  S.Bypassed = C.Bypassed.load(std::memory_order_relaxed);
  S.Stored = C.Stored.load(std::memory_order_relaxed);
  S.Rejected = C.Rejected.load(std::memory_order_relaxed);
  S.Evicted = C.Evicted.load(std::memory_order_relaxed);
  return S;
}

void clearFinalizeMemoryCache() { memory().clear(); }

} // namespace openhsa::finalizer
