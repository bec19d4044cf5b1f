//===- finalizer/CodeObject.cpp - Code object (de)serialization -----------===//
//
// Layout (version 02): the magic "OHSACO02", a little-endian u64 content
// hash (xxh3_64bits of every byte after it), a u32 length of the JSON
// metadata, the metadata, a u64 length of the object, the object bytes,
// then the bytes of the further objects (CodeObject::MoreObjects) whose
// lengths the metadata lists ("more_objects"; absent where there are none,
// so a single object reads as before, and a reader that does not know the
// field refuses the rest as a size mismatch).
// Version 01 had no hash and is refused: re-finalize (or re-serialize).
// Everything read back is checked: the hash, lengths against the buffer,
// every field for its type, and the object's sections, symbols and
// relocations (finalizer/ObjectCheck.h), so a torn or damaged file, or one
// crafted with a valid hash, yields an error, never a crash.
//
//===----------------------------------------------------------------------===//
#include "finalizer/CodeObject.h"

#include <algorithm>

#include "finalizer/ObjectCheck.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <optional>

namespace openhsa::finalizer {

namespace {
constexpr char Magic[8] = {'O', 'H', 'S', 'A', 'C', 'O', '0', '2'};
/// The magic without its two version digits.
constexpr size_t MagicStem = 6;
constexpr size_t HashSize = 8;

template <typename T> void put(std::vector<uint8_t> &Out, T V) {
  uint8_t B[sizeof(T)];
  std::memcpy(B, &V, sizeof(T));
  Out.insert(Out.end(), B, B + sizeof(T));
}

llvm::json::Array dims(const uint32_t (&D)[3]) {
  return llvm::json::Array{D[0], D[1], D[2]};
}

llvm::Error bad(const llvm::Twine &Why) {
  return llvm::createStringError("invalid code object: " + Why);
}

/// A guard's nodes, each [kind, bits, signed, a, b, c, value].
llvm::json::Array guardNodes(const WrapGuard &G) {
  llvm::json::Array Nodes;
  for (const WrapGuard::Node &N : G.Nodes)
    Nodes.push_back(llvm::json::Array{unsigned(N.Kind), N.Bits, N.Signed, N.A,
                                      N.B, N.C, N.Value});
  return Nodes;
}

llvm::Expected<WrapGuard> readGuard(const llvm::json::Array &Nodes) {
  WrapGuard G;
  if (Nodes.size() > WrapGuard::MaxNodes)
    return bad("a guard of more than " + llvm::Twine(WrapGuard::MaxNodes) +
               " nodes");
  for (const llvm::json::Value &V : Nodes) {
    const llvm::json::Array *F = V.getAsArray();
    if (!F || F->size() != 7)
      return bad("a guard node is not an array of seven");
    int64_t Field[7];
    for (unsigned I = 0; I < 7; ++I) {
      auto X = (*F)[I].getAsInteger();
      auto B = (*F)[I].getAsBoolean();
      if (!X && !(I == 2 && B))
        return bad("a guard node's field is not a number");
      Field[I] = X ? *X : int64_t(*B);
      if (I < 6 && (Field[I] < 0 || Field[I] > UINT32_MAX))
        return bad("a guard node's field is out of range");
    }
    if (Field[0] > int64_t(WrapGuard::Op::Fits) || Field[1] > 255)
      return bad("a guard node's kind or width is out of range");
    WrapGuard::Node N;
    N.Kind = WrapGuard::Op(Field[0]);
    N.Bits = uint8_t(Field[1]);
    N.Signed = Field[2] != 0;
    N.A = uint32_t(Field[3]);
    N.B = uint32_t(Field[4]);
    N.C = uint32_t(Field[5]);
    N.Value = Field[6];
    G.Nodes.push_back(N);
  }
  if (std::string Why = G.validate(); !Why.empty())
    return bad("a guard's " + Why);
  return G;
}
} // namespace

std::vector<uint8_t> CodeObject::serialize() const {
  llvm::json::Array Ks, Vs;
  for (const KernelSymbol &K : Kernels)
    Ks.push_back(llvm::json::Object{
        {"name", K.Name},
        {"module", K.ModuleName},
        {"program_linkage", K.ProgramLinkage},
        {"entry", K.EntrySymbol},
        {"kernarg_size", K.KernargSegmentSize},
        {"kernarg_align", K.KernargSegmentAlignment},
        {"group_size", K.GroupSegmentSize},
        {"private_size", K.PrivateSegmentSize},
        {"dynamic_call_stack", K.DynamicCallStack},
        {"required_grid_size", dims(K.RequiredGridSize)},
        {"required_workgroup_size", dims(K.RequiredWorkgroupSize)},
        {"required_dim", K.RequiredDim},
        {"max_flat_grid_size", int64_t(K.MaxFlatGridSize)},
        {"max_flat_workgroup_size", K.MaxFlatWorkgroupSize},
        {"max_dynamic_group_size", K.MaxDynamicGroupSize},
        {"detect_exceptions", K.EnabledDetectExceptions},
        {"require_no_partial_workgroups", K.RequireNoPartialWorkgroups},
        {"vector_width", K.VectorWidth},
        {"scalar_reason", K.ScalarReason},
        {"slice_step", K.SliceStep},
        {"group_runs", K.GroupRuns},
        {"gpu_grid_guard", K.GpuGridGuard},
        {"lockstep", K.Lockstep},
        {"shape_variants", K.ShapeVariants},
        {"code_deferred", K.CodeDeferred},
        {"whole_wave_rows", K.WholeWaveRows}});
  for (size_t I = 0; I < Kernels.size(); ++I)
    if (!Kernels[I].Guard.empty())
      Ks[I].getAsObject()->try_emplace("guard", guardNodes(Kernels[I].Guard));
  for (const VariableSymbol &V : Variables)
    Vs.push_back(llvm::json::Object{{"name", V.Name},
                                    {"module", V.ModuleName},
                                    {"program_linkage", V.ProgramLinkage},
                                    {"symbol", V.ObjectSymbol},
                                    {"segment", V.Segment},
                                    {"agent_allocation", V.AgentAllocation},
                                    {"const", V.Constant},
                                    {"definition", V.Definition},
                                    {"size", int64_t(V.Size)},
                                    {"align", V.Alignment}});
  llvm::json::Array Fs;
  for (const IndirectFunctionSymbol &F : IndirectFunctions)
    Fs.push_back(llvm::json::Object{{"name", F.Name},
                                    {"module", F.ModuleName},
                                    {"program_linkage", F.ProgramLinkage},
                                    {"symbol", F.ObjectSymbol}});
  llvm::json::Object Meta{{"isa", IsaName},
                          {"machine_model", MachineModel},
                          {"profile", Profile},
                          {"rounding", DefaultFloatRounding},
                          {"kernels", std::move(Ks)},
                          {"variables", std::move(Vs)},
                          {"indirect_functions", std::move(Fs)}};
  if (!MoreObjects.empty()) {
    llvm::json::Array Sizes;
    for (const std::vector<uint8_t> &O : MoreObjects)
      Sizes.push_back(uint64_t(O.size()));
    Meta["more_objects"] = std::move(Sizes);
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(std::move(Meta));
  OS.flush();

  std::vector<uint8_t> Out(Magic, Magic + sizeof(Magic));
  put<uint64_t>(Out, 0); // The hash, once the rest is written.
  put<uint32_t>(Out, uint32_t(Text.size()));
  Out.insert(Out.end(), Text.begin(), Text.end());
  put<uint64_t>(Out, Object.size());
  Out.insert(Out.end(), Object.begin(), Object.end());
  for (const std::vector<uint8_t> &O : MoreObjects)
    Out.insert(Out.end(), O.begin(), O.end());
  sealCodeObject(Out);
  return Out;
}

void sealCodeObject(llvm::MutableArrayRef<uint8_t> Bytes) {
  if (Bytes.size() < sizeof(Magic) + HashSize)
    return;
  uint64_t Hash = llvm::xxh3_64bits(Bytes.drop_front(sizeof(Magic) + HashSize));
  std::memcpy(Bytes.data() + sizeof(Magic), &Hash, HashSize);
}

llvm::Expected<CodeObject> CodeObject::deserialize(llvm::ArrayRef<uint8_t> In) {
  if (In.size() < sizeof(Magic) ||
      std::memcmp(In.data(), Magic, MagicStem) != 0)
    return bad("not an openhsa code object (bad magic)");
  if (std::memcmp(In.data(), Magic, sizeof(Magic)) != 0)
    return bad("unsupported version '" +
               llvm::StringRef(
                   reinterpret_cast<const char *>(In.data()) + MagicStem, 2) +
               "' (this runtime reads version 02; finalize again)");
  if (In.size() < sizeof(Magic) + HashSize + 4)
    return bad("truncated header");
  uint64_t Hash;
  std::memcpy(&Hash, In.data() + sizeof(Magic), HashSize);
  if (Hash != llvm::xxh3_64bits(In.drop_front(sizeof(Magic) + HashSize)))
    return bad("content hash mismatch (the bytes were damaged or truncated)");
  size_t Pos = sizeof(Magic) + HashSize;
  uint32_t MetaLen;
  std::memcpy(&MetaLen, In.data() + Pos, 4);
  Pos += 4;
  if (MetaLen > In.size() - Pos)
    return bad("metadata runs past the end");
  llvm::StringRef Text(reinterpret_cast<const char *>(In.data() + Pos),
                       MetaLen);
  Pos += MetaLen;
  if (In.size() - Pos < 8)
    return bad("truncated before the object");
  uint64_t ObjLen;
  std::memcpy(&ObjLen, In.data() + Pos, 8);
  Pos += 8;
  if (ObjLen > In.size() - Pos)
    return bad("object size does not match");

  auto Parsed = llvm::json::parse(Text);
  if (!Parsed)
    return bad("metadata: " + llvm::toString(Parsed.takeError()));
  const llvm::json::Object *Meta = Parsed->getAsObject();
  if (!Meta)
    return bad("metadata is not an object");

  CodeObject CO;
  auto Str = [](const llvm::json::Object &O, llvm::StringRef Key,
                std::string &Out) -> llvm::Error {
    auto V = O.getString(Key);
    if (!V)
      return bad("missing string '" + Key + "'");
    Out = V->str();
    return llvm::Error::success();
  };
  auto Int = [](const llvm::json::Object &O, llvm::StringRef Key, auto &Out,
                int64_t Max) -> llvm::Error {
    auto V = O.getInteger(Key);
    if (!V || *V < 0 || *V > Max)
      return bad("missing or out-of-range integer '" + Key + "'");
    Out = static_cast<std::remove_reference_t<decltype(Out)>>(*V);
    return llvm::Error::success();
  };
  auto Bool = [](const llvm::json::Object &O, llvm::StringRef Key,
                 bool &Out) -> llvm::Error {
    auto V = O.getBoolean(Key);
    if (!V)
      return bad("missing boolean '" + Key + "'");
    Out = *V;
    return llvm::Error::success();
  };
  auto Dims = [](const llvm::json::Object &O, llvm::StringRef Key,
                 uint32_t(&Out)[3]) -> llvm::Error {
    const llvm::json::Array *A = O.getArray(Key);
    if (!A || A->size() != 3)
      return bad("missing array '" + Key + "'");
    for (unsigned I = 0; I < 3; ++I) {
      auto V = (*A)[I].getAsInteger();
      if (!V || *V < 0 || *V > UINT32_MAX)
        return bad("bad element in '" + Key + "'");
      Out[I] = uint32_t(*V);
    }
    return llvm::Error::success();
  };
  if (auto E = Str(*Meta, "isa", CO.IsaName))
    return E;
  if (auto E = Int(*Meta, "machine_model", CO.MachineModel, 1))
    return E;
  if (auto E = Int(*Meta, "profile", CO.Profile, 1))
    return E;
  if (auto E = Int(*Meta, "rounding", CO.DefaultFloatRounding, 2))
    return E;
  const llvm::json::Array *Ks = Meta->getArray("kernels");
  const llvm::json::Array *Vs = Meta->getArray("variables");
  if (!Ks || !Vs)
    return bad("missing kernel or variable list");
  for (const llvm::json::Value &KV : *Ks) {
    const llvm::json::Object *O = KV.getAsObject();
    if (!O)
      return bad("kernel entry is not an object");
    KernelSymbol K;
    if (auto E = Str(*O, "name", K.Name))
      return E;
    if (auto E = Str(*O, "module", K.ModuleName))
      return E;
    if (auto E = Bool(*O, "program_linkage", K.ProgramLinkage))
      return E;
    if (auto E = Str(*O, "entry", K.EntrySymbol))
      return E;
    if (auto E = Int(*O, "kernarg_size", K.KernargSegmentSize, UINT32_MAX))
      return E;
    if (auto E = Int(*O, "kernarg_align", K.KernargSegmentAlignment, 1 << 16))
      return E;
    if (auto E = Int(*O, "group_size", K.GroupSegmentSize, UINT32_MAX))
      return E;
    if (auto E = Int(*O, "private_size", K.PrivateSegmentSize, UINT32_MAX))
      return E;
    if (auto E = Bool(*O, "dynamic_call_stack", K.DynamicCallStack))
      return E;
    if (auto E = Dims(*O, "required_grid_size", K.RequiredGridSize))
      return E;
    if (auto E = Dims(*O, "required_workgroup_size", K.RequiredWorkgroupSize))
      return E;
    if (auto E = Int(*O, "required_dim", K.RequiredDim, 3))
      return E;
    if (auto E = Int(*O, "max_flat_grid_size", K.MaxFlatGridSize, INT64_MAX))
      return E;
    if (auto E = Int(*O, "max_flat_workgroup_size", K.MaxFlatWorkgroupSize,
                     UINT32_MAX))
      return E;
    if (auto E = Int(*O, "max_dynamic_group_size", K.MaxDynamicGroupSize,
                     UINT32_MAX))
      return E;
    // Absent in code objects of earlier versions.
    if (O->get("detect_exceptions"))
      if (auto E =
              Int(*O, "detect_exceptions", K.EnabledDetectExceptions, 0x1f))
        return E;
    if (O->get("require_no_partial_workgroups"))
      if (auto E = Bool(*O, "require_no_partial_workgroups",
                        K.RequireNoPartialWorkgroups))
        return E;
    if (O->get("vector_width"))
      if (auto E = Int(*O, "vector_width", K.VectorWidth, 1024))
        return E;
    if (O->get("scalar_reason"))
      if (auto E = Str(*O, "scalar_reason", K.ScalarReason))
        return E;
    if (O->get("slice_step"))
      if (auto E = Int(*O, "slice_step", K.SliceStep, 64))
        return E;
    if (O->get("group_runs"))
      if (auto E = Bool(*O, "group_runs", K.GroupRuns))
        return E;
    if (O->get("gpu_grid_guard"))
      if (auto E = Bool(*O, "gpu_grid_guard", K.GpuGridGuard))
        return E;
    if (O->get("lockstep"))
      if (auto E = Bool(*O, "lockstep", K.Lockstep))
        return E;
    if (O->get("shape_variants"))
      if (auto E = Bool(*O, "shape_variants", K.ShapeVariants))
        return E;
    if (O->get("code_deferred"))
      if (auto E = Bool(*O, "code_deferred", K.CodeDeferred))
        return E;
    if (O->get("whole_wave_rows"))
      if (auto E = Bool(*O, "whole_wave_rows", K.WholeWaveRows))
        return E;
    if (const llvm::json::Value *G = O->get("guard")) {
      const llvm::json::Array *Nodes = G->getAsArray();
      if (!Nodes)
        return bad("a kernel's guard is not an array");
      auto Guard = readGuard(*Nodes);
      if (!Guard)
        return Guard.takeError();
      K.Guard = std::move(*Guard);
    }
    CO.Kernels.push_back(std::move(K));
  }
  for (const llvm::json::Value &VV : *Vs) {
    const llvm::json::Object *O = VV.getAsObject();
    if (!O)
      return bad("variable entry is not an object");
    VariableSymbol V;
    if (auto E = Str(*O, "name", V.Name))
      return E;
    if (auto E = Str(*O, "module", V.ModuleName))
      return E;
    if (auto E = Bool(*O, "program_linkage", V.ProgramLinkage))
      return E;
    if (auto E = Str(*O, "symbol", V.ObjectSymbol))
      return E;
    if (auto E = Int(*O, "segment", V.Segment, 255))
      return E;
    if (auto E = Bool(*O, "agent_allocation", V.AgentAllocation))
      return E;
    if (auto E = Bool(*O, "const", V.Constant))
      return E;
    if (auto E = Bool(*O, "definition", V.Definition))
      return E;
    if (auto E = Int(*O, "size", V.Size, INT64_MAX))
      return E;
    if (auto E = Int(*O, "align", V.Alignment, 1 << 16))
      return E;
    CO.Variables.push_back(std::move(V));
  }
  if (const llvm::json::Array *Fs = Meta->getArray("indirect_functions")) {
    for (const llvm::json::Value &FV : *Fs) {
      const llvm::json::Object *O = FV.getAsObject();
      if (!O)
        return bad("indirect function entry is not an object");
      IndirectFunctionSymbol F;
      if (auto E = Str(*O, "name", F.Name))
        return E;
      if (auto E = Str(*O, "module", F.ModuleName))
        return E;
      if (auto E = Bool(*O, "program_linkage", F.ProgramLinkage))
        return E;
      if (auto E = Str(*O, "symbol", F.ObjectSymbol))
        return E;
      CO.IndirectFunctions.push_back(std::move(F));
    }
  }
  // The further objects' lengths, which with the first's must account for
  // every byte.
  std::vector<uint64_t> MoreLens;
  if (const llvm::json::Value *More = Meta->get("more_objects")) {
    const llvm::json::Array *Sizes = More->getAsArray();
    if (!Sizes)
      return bad("'more_objects' is not an array");
    uint64_t Left = In.size() - Pos - ObjLen;
    for (const llvm::json::Value &V : *Sizes) {
      std::optional<uint64_t> Len = V.getAsUINT64();
      if (!Len || *Len == 0 || *Len > Left)
        return bad("'more_objects' lists a size past the end");
      Left -= *Len;
      MoreLens.push_back(*Len);
    }
  }
  uint64_t Total = ObjLen;
  for (uint64_t Len : MoreLens)
    Total += Len;
  if (Total != In.size() - Pos)
    return bad("object size does not match");
  if (!MoreLens.empty() && CO.isGpu())
    return bad("a GPU code object has one module of PTX");
  // Checked once copied: the ELF reader needs the object aligned, and it
  // follows the metadata unaligned in the serialized form.
  CO.Object.assign(In.begin() + Pos, In.begin() + Pos + ObjLen);
  Pos += ObjLen;
  for (uint64_t Len : MoreLens) {
    CO.MoreObjects.emplace_back(In.begin() + Pos, In.begin() + Pos + Len);
    Pos += Len;
  }
  if (CO.isGpu()) {
    // PTX text, which the driver parses: only its form is ours to check.
    if (CO.Object.empty() || std::find(CO.Object.begin(), CO.Object.end(),
                                       uint8_t(0)) != CO.Object.end())
      return llvm::createStringError(
          "the code object's PTX is empty or not text");
    return CO;
  }
  if (auto E = checkRelocatableObject(CO.Object))
    return E;
  for (const std::vector<uint8_t> &O : CO.MoreObjects)
    if (auto E = checkRelocatableObject(O))
      return E;
  return CO;
}

} // namespace openhsa::finalizer
