// cppbot: a mus-arena bot in C++ (docs/protocol.md).
//
// The launch handshake, implemented here without any SDK:
//   1. check MUS_ARENA_COOKIE (a friendly message and exit 1 without it);
//   2. choose app protocol version 1 from MUS_ARENA_PROTOCOL_VERSIONS;
//   3. bind 127.0.0.1:0 (or a unix socket in MUS_ARENA_SOCKET_DIR) and serve
//      mus.v1.BotService;
//   4. print "1|1|tcp|127.0.0.1:PORT|grpc" as the first line of stdout and flush;
//   5. serve until Shutdown, SIGTERM, or the parent process going away; ignore SIGINT.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "mus/v1/bot_service.grpc.pb.h"
#include "strategy.h"

namespace {

constexpr const char* kName = "cppbot";
constexpr const char* kVersion = "1.0.0";
constexpr const char* kAuthor = "mus-arena";
constexpr unsigned kAppProtocolVersion = 1;   // mus.v1
constexpr unsigned kCoreProtocolVersion = 1;  // the announce line's format
constexpr const char* kCookieEnv = "MUS_ARENA_COOKIE";
constexpr const char* kCookieValue = "mus-arena-bot-7d3f0c9a2b1e4f56";
constexpr const char* kVersionsEnv = "MUS_ARENA_PROTOCOL_VERSIONS";
constexpr const char* kSocketDirEnv = "MUS_ARENA_SOCKET_DIR";

volatile sig_atomic_t g_sigterm = 0;
std::atomic<bool> g_shutdown_requested{false};
bool g_verbose = false;

void OnSigterm(int) { g_sigterm = 1; }

void Log(const std::string& line) {
  std::fprintf(stderr, "cppbot: %s\n", line.c_str());
  std::fflush(stderr);
}

class BotServiceImpl final : public mus::v1::BotService::Service {
 public:
  grpc::Status GetInfo(grpc::ServerContext*, const mus::v1::GetInfoRequest*,
                       mus::v1::GetInfoResponse* out) override {
    out->set_name(kName);
    out->set_version(kVersion);
    out->set_author(kAuthor);
    out->add_protocol_versions(kAppProtocolVersion);
    out->set_sdk(std::string("grpc-cpp/") + grpc::Version());
    return grpc::Status::OK;
  }

  grpc::Status Play(grpc::ServerContext*,
                    grpc::ServerReaderWriter<mus::v1::PlayResponse, mus::v1::PlayRequest>* stream) override {
    mus::v1::PlayRequest msg;
    while (stream->Read(&msg)) {
      switch (msg.message_case()) {
        case mus::v1::PlayRequest::kDecisionRequest: {
          const auto& req = msg.decision_request();
          auto t0 = std::chrono::steady_clock::now();
          std::string why;
          mus::v1::PlayResponse resp;
          auto* d = resp.mutable_decision();
          d->set_request_id(req.request_id());
          *d->mutable_action() = cppbot::Decide(req, &why);
          if (g_verbose) {
            auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
            std::ostringstream line;
            line << "request " << req.request_id() << ": " << why << " -> " << d->action().ShortDebugString()
                 << " (" << us.count() << " us)";
            Log(line.str());
          }
          if (!stream->Write(resp)) return grpc::Status::OK;  // the arena went away
          break;
        }
        case mus::v1::PlayRequest::kMatchStart: {
          const auto& ms = msg.match_start();
          std::ostringstream line;
          line << "match " << ms.match_id() << " starts, seat " << ms.seat() << ", " << ms.rules().kings()
               << " kings, target " << ms.rules().target_points();
          Log(line.str());
          break;
        }
        case mus::v1::PlayRequest::kMatchEnd: {
          const auto& me = msg.match_end();
          std::ostringstream line;
          line << "match ends: " << mus::v1::MatchEndReason_Name(me.reason());
          if (me.has_winner_team()) line << ", team " << me.winner_team() << " wins";
          Log(line.str());
          break;
        }
        default:
          break;  // hand_end needs no answer; unknown kinds come from a newer arena
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext*, const mus::v1::ShutdownRequest*,
                        mus::v1::ShutdownResponse*) override {
    g_shutdown_requested = true;  // the main thread stops the server after this answer
    return grpc::Status::OK;
  }
};

// The newest app protocol version both sides speak; 0 if none. Unset or blank offers 1.
unsigned Negotiate(const char* offered) {
  if (!offered) return kAppProtocolVersion;
  std::string text(offered);
  if (text.find_first_not_of(" \t") == std::string::npos) return kAppProtocolVersion;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    if (item.substr(b, e - b + 1) == std::to_string(kAppProtocolVersion)) return kAppProtocolVersion;
  }
  return 0;
}

}  // namespace

int main() {
  const char* cookie = std::getenv(kCookieEnv);
  if (!cookie || std::strcmp(cookie, kCookieValue) != 0) {
    std::fprintf(stderr,
                 "This is a mus-arena bot (cppbot). It is meant to be started by the arena, which\n"
                 "connects to it over gRPC, not run by hand. Test it with `mus check bots/cpp`,\n"
                 "or play it with `mus match bots/cpp bots/rulebot` (see docs/protocol.md).\n");
    return 1;
  }
  const char* offered = std::getenv(kVersionsEnv);
  unsigned version = Negotiate(offered);
  if (version == 0) {
    std::fprintf(stderr, "cppbot: the arena offers protocol versions %s (%s) but cppbot speaks only %u\n",
                 offered, kVersionsEnv, kAppProtocolVersion);
    return 1;
  }
  g_verbose = std::getenv("CPPBOT_VERBOSE") != nullptr;

  // The arena owns our lifetime: Ctrl-C at its terminal must not kill us mid-match.
  signal(SIGINT, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = OnSigterm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  // Remember the parent to notice when it goes away (we are then re-parented). Not
  // PR_SET_PDEATHSIG: it fires when the *thread* that forked us exits, which may be a
  // short-lived worker thread of the arena.
  const pid_t parent = getppid();

  cppbot::InitTables();  // before announcing, so the first decision is fast

  BotServiceImpl service;
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // never share a port
  builder.RegisterService(&service);
  std::string network, address, socket_path;
  int port = 0;
  const char* socket_dir = std::getenv(kSocketDirEnv);
  if (socket_dir && *socket_dir) {
    char resolved[4096];
    std::string dir = realpath(socket_dir, resolved) ? resolved : socket_dir;
    socket_path = dir + "/cppbot-" + std::to_string(getpid()) + ".sock";
    if (socket_path.size() > 100) {  // sun_path is 108 bytes on Linux
      std::fprintf(stderr, "cppbot: unix socket path too long (%zu bytes): %s\n", socket_path.size(),
                   socket_path.c_str());
      return 1;
    }
    unlink(socket_path.c_str());
    builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials(), &port);
    network = "unix";
    address = socket_path;
  } else {
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    network = "tcp";
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "cppbot: cannot serve: could not bind %s\n",
                 network == "unix" ? socket_path.c_str() : "127.0.0.1:0");
    return 1;
  }
  if (network == "tcp") address = "127.0.0.1:" + std::to_string(port);

  std::printf("%u|%u|%s|%s|grpc\n", kCoreProtocolVersion, version, network.c_str(), address.c_str());
  std::fflush(stdout);

  while (!g_sigterm && !g_shutdown_requested) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (getppid() != parent) {
      Log("parent process went away; exiting");
      break;
    }
  }
  if (g_sigterm) Log("SIGTERM; exiting");
  // Let in-flight calls (the Shutdown answer) finish; cancel an open stream after 1 s.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  if (!socket_path.empty()) unlink(socket_path.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(0);  // skip static destructors: gRPC's threads may still be winding down
}
