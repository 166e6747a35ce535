//===- LlmClient.cpp - Chat requests to LLM endpoints ---------------------===//

#include "egg/Agents/LlmClient.h"
#include "egg/Agents/ExchangeLog.h"
#include "egg/Support/RuntimeLibrary.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>

using namespace mlir::egg;
namespace json = llvm::json;

namespace {
/// The libcurl entry points, opened once.
struct Curl {
  decltype(&curl_global_init) globalInit = nullptr;
  decltype(&curl_easy_init) init = nullptr;
  CURLcode (*setopt)(CURL *, CURLoption, ...) = nullptr;
  decltype(&curl_easy_perform) perform = nullptr;
  CURLcode (*getinfo)(CURL *, CURLINFO, ...) = nullptr;
  decltype(&curl_easy_cleanup) cleanup = nullptr;
  decltype(&curl_easy_strerror) strerror = nullptr;
  decltype(&curl_slist_append) slistAppend = nullptr;
  decltype(&curl_slist_free_all) slistFree = nullptr;
  std::string error;

  static const Curl &get() {
    static Curl curl = [] {
      Curl c;
      RuntimeLibrary lib("libcurl.so.4", "libcurl");
      lib.load(c.globalInit, "curl_global_init");
      lib.load(c.init, "curl_easy_init");
      lib.load(c.setopt, "curl_easy_setopt");
      lib.load(c.perform, "curl_easy_perform");
      lib.load(c.getinfo, "curl_easy_getinfo");
      lib.load(c.cleanup, "curl_easy_cleanup");
      lib.load(c.strerror, "curl_easy_strerror");
      lib.load(c.slistAppend, "curl_slist_append");
      lib.load(c.slistFree, "curl_slist_free_all");
      c.error = lib.getError();
      if (c.error.empty())
        c.globalInit(CURL_GLOBAL_DEFAULT);
      return c;
    }();
    return curl;
  }
};

struct Body {
  std::string data;
  size_t limit;
  bool truncated = false;
};

size_t write(char *ptr, size_t size, size_t n, void *user) {
  auto *body = static_cast<Body *>(user);
  size_t bytes = size * n;
  if (body->data.size() + bytes > body->limit) {
    body->truncated = true;
    return 0; // Makes libcurl stop with a write error.
  }
  body->data.append(ptr, bytes);
  return bytes;
}
} // namespace

LlmConfig LlmConfig::fromEnvironment() {
  LlmConfig c;
  auto get = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  if (!get("EGG_LLM_PROTOCOL").empty())
    c.protocol = get("EGG_LLM_PROTOCOL");
  c.endpoint = get("EGG_LLM_ENDPOINT");
  c.model = get("EGG_LLM_MODEL");
  c.keyEnv = get("EGG_LLM_KEY_ENV");
  if (!get("EGG_LLM_TIMEOUT").empty())
    c.timeoutSeconds = std::atof(get("EGG_LLM_TIMEOUT").c_str());
  c.cachePath = get("EGG_LLM_CACHE");
  auto number = [&](const char *name) {
    return get(name).empty() ? 0.0 : std::atof(get(name).c_str());
  };
  c.maxTokens = number("EGG_LLM_MAX_TOKENS");
  c.maxCost = number("EGG_LLM_MAX_COST");
  c.promptPricePerMTok = number("EGG_LLM_PRICE_IN");
  c.completionPricePerMTok = number("EGG_LLM_PRICE_OUT");
  return c;
}

/// The request body of either protocol.
static std::string requestBody(const LlmConfig &config,
                               const std::string &system,
                               const std::vector<ChatMessage> &messages) {
  json::Array list;
  if (config.protocol == "openai")
    list.push_back(json::Object{{"role", "system"}, {"content", system}});
  for (const ChatMessage &m : messages)
    list.push_back(json::Object{{"role", m.role}, {"content", m.content}});
  json::Object body{{"model", config.model},
                    {"messages", std::move(list)},
                    {"temperature", config.temperature}};
  if (config.protocol == "anthropic") {
    body["system"] = system;
    body["max_tokens"] = 1024;
  } else {
    body["response_format"] = json::Object{{"type", "json_object"}};
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(body));
  return text;
}

/// The model's text out of a response body of either protocol.
static bool replyText(const LlmConfig &config, const std::string &body,
                      LlmReply &reply) {
  std::string &text = reply.content;
  std::string &error = reply.error;
  llvm::Expected<json::Value> value = json::parse(body);
  if (!value) {
    error = "the endpoint answered with invalid JSON: " +
            llvm::toString(value.takeError());
    return false;
  }
  const json::Object *root = value->getAsObject();
  if (const json::Object *usage = root ? root->getObject("usage") : nullptr) {
    bool anthropic = config.protocol == "anthropic";
    reply.promptTokens =
        usage->getNumber(anthropic ? "input_tokens" : "prompt_tokens")
            .value_or(0);
    reply.completionTokens =
        usage->getNumber(anthropic ? "output_tokens" : "completion_tokens")
            .value_or(0);
  }
  const json::Array *list =
      root ? root->getArray(config.protocol == "anthropic" ? "content"
                                                           : "choices")
           : nullptr;
  const json::Object *first =
      list && !list->empty() ? (*list)[0].getAsObject() : nullptr;
  if (first && config.protocol == "anthropic") {
    if (auto t = first->getString("text")) {
      text = t->str();
      return true;
    }
  } else if (first) {
    if (const json::Object *message = first->getObject("message"))
      if (auto t = message->getString("content")) {
        text = t->str();
        return true;
      }
  }
  error = "the endpoint's answer has no message text";
  return false;
}

static LlmReply send(const LlmConfig &config, const std::string &request,
                     const std::string &key);

LlmReply mlir::egg::chat(const LlmConfig &config, const std::string &system,
                         const std::vector<ChatMessage> &messages) {
  std::string key;
  if (!config.keyEnv.empty())
    if (const char *k = std::getenv(config.keyEnv.c_str()))
      key = k;
  std::string request = requestBody(config, system, messages);
  if (config.cachePath.empty())
    return send(config, request, key);

  // One open database per path for the whole process.
  // Never destroyed: at exit the SQLite library may already be unloaded,
  // and every record is committed when it is written.
  static auto *logs = new std::map<std::string, std::unique_ptr<ExchangeLog>>;
  std::unique_ptr<ExchangeLog> &log = (*logs)[config.cachePath];
  if (!log) {
    std::string error;
    log = ExchangeLog::open(config.cachePath, error);
    if (!log) {
      LlmReply reply;
      reply.error = "response cache: " + error;
      return reply;
    }
  }
  // Keyed by protocol and request body (which names the model), not by
  // the endpoint: a recorded run replays wherever the endpoint went.
  std::string cacheKey = config.protocol + "\n" + request;
  if (std::optional<std::string> hit = log->lookup(cacheKey)) {
    LlmReply reply;
    reply.ok = true;
    reply.cached = true;
    reply.content = *hit;
    log->record(cacheKey, *hit, "", 200, 0, /*cached=*/true, key);
    return reply;
  }
  LlmReply reply = send(config, request, key);
  log->record(cacheKey, reply.content, reply.ok ? "" : reply.error,
              reply.httpStatus, reply.attempts, /*cached=*/false, key);
  return reply;
}

static LlmReply send(const LlmConfig &config, const std::string &request,
                     const std::string &key) {
  LlmReply reply;
  const Curl &curl = Curl::get();
  if (!curl.error.empty()) {
    reply.error = curl.error;
    return reply;
  }
  if (config.endpoint.empty()) {
    reply.error = "no endpoint configured (EGG_LLM_ENDPOINT)";
    return reply;
  }
  if (config.protocol != "openai" && config.protocol != "anthropic") {
    reply.error = "unknown protocol '" + config.protocol +
                  "': expected openai or anthropic";
    return reply;
  }
  if (!config.keyEnv.empty() && key.empty()) {
    reply.error = "the key variable " + config.keyEnv + " is not set";
    return reply;
  }
  for (int attempt = 1; attempt <= config.maxAttempts; ++attempt) {
    reply.attempts = attempt;
    CURL *handle = curl.init();
    if (!handle) {
      reply.error = "curl_easy_init failed";
      return reply;
    }
    curl_slist *headers =
        curl.slistAppend(nullptr, "Content-Type: application/json");
    if (!key.empty()) {
      std::string auth = config.protocol == "anthropic"
                             ? "x-api-key: " + key
                             : "Authorization: Bearer " + key;
      headers = curl.slistAppend(headers, auth.c_str());
    }
    if (config.protocol == "anthropic")
      headers = curl.slistAppend(headers, "anthropic-version: 2023-06-01");
    Body body{std::string(), config.maxResponseBytes};
    curl.setopt(handle, CURLOPT_URL, config.endpoint.c_str());
    curl.setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl.setopt(handle, CURLOPT_POSTFIELDS, request.c_str());
    curl.setopt(handle, CURLOPT_POSTFIELDSIZE, long(request.size()));
    curl.setopt(handle, CURLOPT_WRITEFUNCTION, write);
    curl.setopt(handle, CURLOPT_WRITEDATA, &body);
    curl.setopt(handle, CURLOPT_TIMEOUT_MS, long(config.timeoutSeconds * 1000));
    curl.setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                long(std::min(config.timeoutSeconds, 10.0) * 1000));
    curl.setopt(handle, CURLOPT_NOSIGNAL, 1L);
    CURLcode code = curl.perform(handle);
    long status = 0;
    curl_off_t retryAfter = 0; // Seconds the server asked us to wait.
    curl.getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    curl.getinfo(handle, CURLINFO_RETRY_AFTER, &retryAfter);
    curl.slistFree(headers);
    curl.cleanup(handle);
    reply.httpStatus = status;
    bool retry = false;
    if (body.truncated) {
      reply.error = "the response exceeded " +
                    std::to_string(config.maxResponseBytes) + " bytes";
    } else if (code != CURLE_OK) {
      reply.error = std::string("request failed: ") + curl.strerror(code);
      retry = code == CURLE_OPERATION_TIMEDOUT ||
              code == CURLE_COULDNT_CONNECT || code == CURLE_RECV_ERROR;
    } else if (status == 429 || status >= 500) {
      reply.error = "the endpoint answered HTTP " + std::to_string(status);
      retry = true;
    } else if (status != 200) {
      reply.error = "the endpoint answered HTTP " + std::to_string(status);
    } else if (replyText(config, body.data, reply)) {
      reply.ok = true;
      reply.error.clear();
      return reply;
    }
    if (!retry || attempt == config.maxAttempts)
      return reply;
    // Exponential backoff, or the server's Retry-After (capped at 30 s).
    auto wait = std::chrono::milliseconds(200 << attempt);
    if (retryAfter > 0)
      wait = std::chrono::seconds(std::min<curl_off_t>(retryAfter, 30));
    std::this_thread::sleep_for(wait);
  }
  return reply;
}
