//===- tools/openhsa-info/openhsa-info.cpp - Describe the HSA system ------===//
//
// Prints the system, its agents, their regions, caches and ISAs, in the
// spirit of rocminfo/clinfo. Uses only the public C API, so it describes
// whatever libhsa-runtime64.so it is run against.
//
//===----------------------------------------------------------------------===//
#include "hsa/hsa.h"
#include "hsa/hsa_ext_openhsa.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(hsa_status_t Status, const char *What) {
  if (Status == HSA_STATUS_SUCCESS || Status == HSA_STATUS_INFO_BREAK)
    return;
  const char *Text = "unknown status";
  hsa_status_string(Status, &Text);
  std::fprintf(stderr, "openhsa-info: %s: %s\n", What, Text);
  std::exit(1);
}

template <typename T, typename Handle, typename Attr, typename Fn>
T query(Fn Get, Handle H, Attr A, const char *What) {
  T Value{};
  check(Get(H, A, &Value), What);
  return Value;
}

std::string sizeText(uint64_t Bytes) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double V = double(Bytes);
  int U = 0;
  while (V >= 1024 && U < 4) {
    V /= 1024;
    ++U;
  }
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), U ? "%.1f %s" : "%.0f %s", V, Units[U]);
  return Buf;
}

const char *segmentName(hsa_region_segment_t S) {
  switch (S) {
  case HSA_REGION_SEGMENT_GLOBAL:
    return "global";
  case HSA_REGION_SEGMENT_READONLY:
    return "readonly";
  case HSA_REGION_SEGMENT_PRIVATE:
    return "private";
  case HSA_REGION_SEGMENT_GROUP:
    return "group";
  case HSA_REGION_SEGMENT_KERNARG:
    return "kernarg";
  }
  return "?";
}

void printRegion(hsa_region_t R, unsigned Index) {
  auto Seg = query<hsa_region_segment_t>(
      hsa_region_get_info, R, HSA_REGION_INFO_SEGMENT, "region segment");
  std::printf("    Region %u: %s", Index, segmentName(Seg));
  if (Seg == HSA_REGION_SEGMENT_GLOBAL) {
    auto Flags = query<uint32_t>(hsa_region_get_info, R,
                                 HSA_REGION_INFO_GLOBAL_FLAGS, "region flags");
    std::printf(
        " [%s%s%s]", Flags & HSA_REGION_GLOBAL_FLAG_KERNARG ? "kernarg " : "",
        Flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED ? "fine-grained" : "",
        Flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED ? "coarse-grained" : "");
  }
  std::printf("\n");
  auto Size = query<size_t>(hsa_region_get_info, R, HSA_REGION_INFO_SIZE,
                            "region size");
  auto Alloc =
      query<bool>(hsa_region_get_info, R, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED,
                  "region alloc");
  std::printf("      Size:                   %s\n", sizeText(Size).c_str());
  std::printf("      Runtime allocation:     %s\n", Alloc ? "yes" : "no");
  if (Alloc) {
    auto Max = query<size_t>(hsa_region_get_info, R,
                             HSA_REGION_INFO_ALLOC_MAX_SIZE, "region max");
    auto Granule =
        query<size_t>(hsa_region_get_info, R,
                      HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE, "granule");
    auto Align =
        query<size_t>(hsa_region_get_info, R,
                      HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT, "alignment");
    std::printf("      Largest allocation:     %s\n", sizeText(Max).c_str());
    std::printf("      Granule / alignment:    %zu / %zu bytes\n", Granule,
                Align);
  }
}

void printIsa(hsa_isa_t I) {
  auto Len = query<uint32_t>(hsa_isa_get_info_alt, I, HSA_ISA_INFO_NAME_LENGTH,
                             "ISA name length");
  std::string Name(Len, '\0');
  check(hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME, Name.data()), "ISA name");
  uint16_t WgDim[3];
  check(hsa_isa_get_info_alt(I, HSA_ISA_INFO_WORKGROUP_MAX_DIM, WgDim),
        "ISA dims");
  auto WgMax = query<uint32_t>(hsa_isa_get_info_alt, I,
                               HSA_ISA_INFO_WORKGROUP_MAX_SIZE, "ISA wg max");
  auto GridMax = query<uint64_t>(hsa_isa_get_info_alt, I,
                                 HSA_ISA_INFO_GRID_MAX_SIZE, "ISA grid max");
  auto Fbar = query<uint32_t>(hsa_isa_get_info_alt, I,
                              HSA_ISA_INFO_FBARRIER_MAX_SIZE, "ISA fbarriers");
  std::printf("    ISA: %s\n", Name.c_str());
  std::printf("      Work-group max:         %u (%u x %u x %u)\n", WgMax,
              WgDim[0], WgDim[1], WgDim[2]);
  std::printf("      Grid max:               %llu work-items\n",
              (unsigned long long)GridMax);
  std::printf("      Fbarriers max:          %u\n", Fbar);
  hsa_isa_iterate_wavefronts(
      I,
      [](hsa_wavefront_t W, void *) {
        uint32_t Size = 0;
        check(hsa_wavefront_get_info(W, HSA_WAVEFRONT_INFO_SIZE, &Size),
              "wavefront size");
        std::printf("      Wavefront size:         %u\n", Size);
        return HSA_STATUS_SUCCESS;
      },
      nullptr);
}

void printAgent(hsa_agent_t A, unsigned Index) {
  char Name[64], Vendor[64];
  check(hsa_agent_get_info(A, HSA_AGENT_INFO_NAME, Name), "agent name");
  check(hsa_agent_get_info(A, HSA_AGENT_INFO_VENDOR_NAME, Vendor), "vendor");
  auto Device = query<hsa_device_type_t>(hsa_agent_get_info, A,
                                         HSA_AGENT_INFO_DEVICE, "device");
  auto Feature =
      query<uint32_t>(hsa_agent_get_info, A, HSA_AGENT_INFO_FEATURE, "feature");
  auto Node =
      query<uint32_t>(hsa_agent_get_info, A, HSA_AGENT_INFO_NODE, "node");
  auto QMin = query<uint32_t>(hsa_agent_get_info, A,
                              HSA_AGENT_INFO_QUEUE_MIN_SIZE, "queue min");
  auto QMax = query<uint32_t>(hsa_agent_get_info, A,
                              HSA_AGENT_INFO_QUEUE_MAX_SIZE, "queue max");
  auto QCount = query<uint32_t>(hsa_agent_get_info, A,
                                HSA_AGENT_INFO_QUEUES_MAX, "queues max");
  auto Profile = query<hsa_profile_t>(hsa_agent_get_info, A,
                                      HSA_AGENT_INFO_PROFILE, "profile");
  auto Model = query<hsa_machine_model_t>(
      hsa_agent_get_info, A, HSA_AGENT_INFO_MACHINE_MODEL, "model");
  auto Major = query<uint16_t>(hsa_agent_get_info, A,
                               HSA_AGENT_INFO_VERSION_MAJOR, "version");
  auto Minor = query<uint16_t>(hsa_agent_get_info, A,
                               HSA_AGENT_INFO_VERSION_MINOR, "version");
  std::printf("Agent %u: %s\n", Index, Name);
  std::printf("  Vendor:                   %s\n", Vendor);
  std::printf("  Device type:              %s\n",
              Device == HSA_DEVICE_TYPE_CPU   ? "CPU"
              : Device == HSA_DEVICE_TYPE_GPU ? "GPU"
                                              : "DSP");
  std::printf(
      "  Features:                 %s%s\n",
      Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH ? "kernel-dispatch " : "",
      Feature & HSA_AGENT_FEATURE_AGENT_DISPATCH ? "agent-dispatch" : "");
  std::printf("  HSA version:              %u.%u\n", Major, Minor);
  std::printf("  Profile / machine model:  %s / %s\n",
              Profile == HSA_PROFILE_FULL ? "full" : "base",
              Model == HSA_MACHINE_MODEL_LARGE ? "large" : "small");
  std::printf("  NUMA node:                %u\n", Node);
  uint32_t Cus = 0, Clock = 0;
  if (hsa_agent_get_info(
          A, hsa_agent_info_t(HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT),
          &Cus) == HSA_STATUS_SUCCESS)
    std::printf("  Compute units (cores):    %u\n", Cus);
  if (hsa_agent_get_info(
          A, hsa_agent_info_t(HSA_EXT_OPENHSA_AGENT_INFO_MAX_CLOCK_FREQUENCY),
          &Clock) == HSA_STATUS_SUCCESS &&
      Clock)
    std::printf("  Max clock:                %u MHz\n", Clock);
  std::printf("  Queues:                   up to %u, %u..%u packets\n", QCount,
              QMin, QMax);

  std::printf("  Caches:\n");
  hsa_agent_iterate_caches(
      A,
      [](hsa_cache_t C, void *) {
        auto Len = query<uint32_t>(hsa_cache_get_info, C,
                                   HSA_CACHE_INFO_NAME_LENGTH, "cache name");
        std::string CName(Len, '\0');
        check(hsa_cache_get_info(C, HSA_CACHE_INFO_NAME, CName.data()),
              "cache name");
        auto Size = query<uint32_t>(hsa_cache_get_info, C, HSA_CACHE_INFO_SIZE,
                                    "cache size");
        std::printf("    %-4s %s\n", CName.c_str(), sizeText(Size).c_str());
        return HSA_STATUS_SUCCESS;
      },
      nullptr);

  std::printf("  Regions:\n");
  std::vector<hsa_region_t> Regions;
  check(hsa_agent_iterate_regions(
            A,
            [](hsa_region_t R, void *Data) {
              static_cast<std::vector<hsa_region_t> *>(Data)->push_back(R);
              return HSA_STATUS_SUCCESS;
            },
            &Regions),
        "regions");
  for (unsigned I = 0; I < Regions.size(); ++I)
    printRegion(Regions[I], I);

  std::printf("  ISAs:\n");
  unsigned Isas = 0;
  check(hsa_agent_iterate_isas(
            A,
            [](hsa_isa_t I, void *Count) {
              printIsa(I);
              ++*static_cast<unsigned *>(Count);
              return HSA_STATUS_SUCCESS;
            },
            &Isas),
        "ISAs");
  // Each CPU node has a kernel agent and an agent dispatch agent; the
  // latter runs the handlers of agent dispatch packets, no kernels.
  if (Isas == 0)
    std::printf("    none (%s)\n", Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH
                                       ? "no kernels"
                                       : "agent dispatch packets only");
}

} // namespace

int main() {
  // The library is quiet unless asked (README); OPENHSA_DEBUG=0 silences it.
  setenv("OPENHSA_DEBUG", "warning", /*overwrite=*/0);
  check(hsa_init(), "hsa_init");
  auto Major =
      query<uint16_t>([](int, hsa_system_info_t A,
                         void *V) { return hsa_system_get_info(A, V); },
                      0, HSA_SYSTEM_INFO_VERSION_MAJOR, "version");
  auto Minor =
      query<uint16_t>([](int, hsa_system_info_t A,
                         void *V) { return hsa_system_get_info(A, V); },
                      0, HSA_SYSTEM_INFO_VERSION_MINOR, "version");
  uint64_t Freq = 0;
  check(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Freq),
        "freq");
  uint8_t Ext[128];
  check(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, Ext), "extensions");
  std::printf("HSA system (openhsa)\n");
  std::printf("  Runtime version:          %u.%u\n", Major, Minor);
  std::printf("  Timestamp frequency:      %llu MHz\n",
              (unsigned long long)(Freq / 1000000));
  std::printf("  Extensions:              ");
  for (unsigned Id = 0; Id < 1024; ++Id)
    if (Ext[Id / 8] & (1u << (Id % 8))) {
      const char *Name = "?";
      hsa_extension_get_name(uint16_t(Id), &Name);
      std::printf(" %s", Name);
    }
  std::printf("\n\n");

  std::vector<hsa_agent_t> Agents;
  check(hsa_iterate_agents(
            [](hsa_agent_t A, void *Data) {
              static_cast<std::vector<hsa_agent_t> *>(Data)->push_back(A);
              return HSA_STATUS_SUCCESS;
            },
            &Agents),
        "agents");
  for (unsigned I = 0; I < Agents.size(); ++I)
    printAgent(Agents[I], I);
  check(hsa_shut_down(), "hsa_shut_down");
  return 0;
}
