//===- tools/openhsa-run/RunOptions.cpp - openhsa-run's command line ------===//
#include "RunOptions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <sstream>

namespace openhsa::run {

void die(const std::string &Message) {
  std::fprintf(stderr, "openhsa-run: error: %s\n", Message.c_str());
  std::exit(1);
}

namespace {

[[noreturn]] void usage() {
  std::fprintf(
      stderr,
      "usage: openhsa-run FILE.hsail|FILE.brig -k &KERNEL [--agent "
      "cpu|gpu|N|all]\n"
      "                   [--grid X[,Y[,Z]]] [--group X[,Y[,Z]]] "
      "[--dynamic-group BYTES]\n"
      "                   [--repeat N] [--fixed-shape] [--arg SPEC]...\n"
      "  --agent: the first CPU kernel agent (default), the first GPU, agent "
      "N as\n"
      "           openhsa-info numbers them, or every kernel agent in turn "
      "(a table,\n"
      "           each agent's outputs compared with the first one's)\n"
      "  --fixed-shape: finalize for this grid and group alone (the control\n"
      "           directives requireddim, requiredgridsize, "
      "requiredworkgroupsize)\n"
      "  SPEC: u32:V s32:V u64:V s64:V f32:V f64:V\n"
      "        buf:BYTES[:fill=BYTE|:iota32|:file=PATH][:dump=PATH]"
      "[:print=u32|s32|f32|f64]\n");
  std::exit(2);
}

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Parts;
  std::stringstream In(S);
  for (std::string P; std::getline(In, P, Sep);)
    Parts.push_back(P);
  return Parts;
}

ArgSpec parseArg(const std::string &Spec) {
  std::vector<std::string> P = split(Spec, ':');
  if (P.size() < 2)
    die("argument '" + Spec + "': expected KIND:VALUE");
  ArgSpec A;
  A.Kind = P[0];
  if (A.Kind == "buf") {
    A.Bytes = std::strtoull(P[1].c_str(), nullptr, 0);
    if (!A.Bytes)
      die("argument '" + Spec + "': a buffer needs a size in bytes");
    for (size_t I = 2; I < P.size(); ++I) {
      auto Eq = P[I].find('=');
      std::string Key = P[I].substr(0, Eq);
      std::string Val = Eq == std::string::npos ? "" : P[I].substr(Eq + 1);
      if (Key == "fill" || Key == "iota32")
        A.Fill = Key == "iota32" ? "iota32" : Val;
      else if (Key == "file")
        A.File = Val;
      else if (Key == "dump")
        A.Dump = Val;
      else if (Key == "print")
        A.Print = Val;
      else
        die("argument '" + Spec + "': unknown buffer option '" + Key + "'");
    }
    return A;
  }
  static const char *Scalars[] = {"u32", "s32", "u64", "s64", "f32", "f64"};
  if (std::find_if(std::begin(Scalars), std::end(Scalars), [&](const char *S) {
        return A.Kind == S;
      }) == std::end(Scalars))
    die("argument '" + Spec + "': unknown kind '" + A.Kind + "'");
  A.Value = P[1];
  return A;
}

void parseDims(const std::string &S, uint32_t Out[3], uint32_t &Dims) {
  std::vector<std::string> P = split(S, ',');
  if (P.empty() || P.size() > 3)
    die("dimensions '" + S + "': expected X[,Y[,Z]]");
  Dims = std::max<uint32_t>(Dims, uint32_t(P.size()));
  for (size_t I = 0; I < P.size(); ++I) {
    Out[I] = uint32_t(std::strtoul(P[I].c_str(), nullptr, 0));
    if (!Out[I])
      die("dimensions '" + S + "': sizes must be positive");
  }
}

bool isNumber(const std::string &S) {
  return !S.empty() && std::all_of(S.begin(), S.end(),
                                   [](char C) { return C >= '0' && C <= '9'; });
}

} // namespace

RunOptions parseRunOptions(int Argc, char **Argv) {
  RunOptions O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= Argc)
        usage();
      return Argv[++I];
    };
    if (A == "-k" || A == "--kernel")
      O.Kernel = Next();
    else if (A == "--agent")
      O.Agent = Next();
    else if (A == "--grid")
      parseDims(Next(), O.Grid, O.Dims);
    else if (A == "--group")
      parseDims(Next(), O.Group, O.Dims);
    else if (A == "--dynamic-group")
      O.DynamicGroup = uint32_t(std::strtoul(Next().c_str(), nullptr, 0));
    else if (A == "--repeat")
      O.Repeat =
          std::max(1u, unsigned(std::strtoul(Next().c_str(), nullptr, 0)));
    else if (A == "--fixed-shape")
      O.FixedShape = true;
    else if (A == "--arg")
      O.Args.push_back(parseArg(Next()));
    else if (A == "-h" || A == "--help")
      usage();
    else if (O.Input.empty() && A[0] != '-')
      O.Input = A;
    else
      usage();
  }
  if (O.Input.empty() || O.Kernel.empty())
    usage();
  if (O.Agent != "cpu" && O.Agent != "gpu" && O.Agent != "all" &&
      !isNumber(O.Agent))
    die("--agent '" + O.Agent +
        "': expected cpu, gpu, all or an agent's number");
  return O;
}

} // namespace openhsa::run
