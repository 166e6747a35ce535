//===- LlmClient.cpp - Chat requests to LLM endpoints ---------------------===//

#include "egg/Agents/LlmClient.h"
#include "egg/Agents/ExchangeLog.h"
#include "egg/Support/Json.h"
#include "egg/Support/RuntimeLibrary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

llvm::cl::OptionCategory &mlir::egg::getLlmOptionCategory() {
  static llvm::cl::OptionCategory category("EGG LLM agent options");
  return category;
}

namespace {
/// The --egg-llm-* flags; constructed only by tools that register them, so
/// libraries and plugins add nothing to a host's command line.
struct LlmOptions {
  llvm::cl::opt<std::string> protocol{
      "egg-llm-protocol", llvm::cl::desc("LLM protocol: openai or anthropic"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> endpoint{
      "egg-llm-endpoint", llvm::cl::desc("Full URL of the chat endpoint"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> model{"egg-llm-model",
                                   llvm::cl::desc("Model name to request"),
                                   llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> keyEnv{
      "egg-llm-key-env",
      llvm::cl::desc("Name of the environment variable holding the API key"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> temperature{
      "egg-llm-temperature", llvm::cl::desc("Sampling temperature (0-2)"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> timeout{
      "egg-llm-timeout", llvm::cl::desc("Seconds per request (default 60)"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> output{
      "egg-llm-output",
      llvm::cl::desc("Answer format asked for: schema, json or text"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> prompts{
      "egg-llm-prompts",
      llvm::cl::desc("Directory of prompt templates replacing the built-in "
                     "ones"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> cache{
      "egg-llm-cache",
      llvm::cl::desc("SQLite response cache and record of every exchange"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> maxTokens{
      "egg-llm-max-tokens", llvm::cl::desc("Token budget of a run (0: none)"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> maxCost{
      "egg-llm-max-cost", llvm::cl::desc("Cost budget of a run (0: none)"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> priceIn{
      "egg-llm-price-in",
      llvm::cl::desc("Price per million prompt tokens, for the cost"),
      llvm::cl::cat(getLlmOptionCategory())};
  llvm::cl::opt<std::string> priceOut{
      "egg-llm-price-out",
      llvm::cl::desc("Price per million completion tokens, for the cost"),
      llvm::cl::cat(getLlmOptionCategory())};
};
llvm::ManagedStatic<LlmOptions> llmOptions;
} // namespace

void mlir::egg::registerLlmCLOptions() { *llmOptions; }

LlmConfig LlmConfig::fromEnvironment() {
  LlmConfig c;
  // Each setting: the flag when given, else the variable when set.
  auto get = [](const llvm::cl::opt<std::string> *flag,
                const char *var) -> std::optional<std::string> {
    if (flag && flag->getNumOccurrences())
      return flag->getValue();
    if (const char *v = std::getenv(var); v && *v)
      return std::string(v);
    return std::nullopt;
  };
  const LlmOptions *o = llmOptions.isConstructed() ? &*llmOptions : nullptr;
  auto text = [&](std::string &field,
                  llvm::cl::opt<std::string> LlmOptions::*member,
                  const char *var) {
    if (auto v = get(o ? &(o->*member) : nullptr, var))
      field = *v;
  };
  auto number = [&](double &field,
                    llvm::cl::opt<std::string> LlmOptions::*member,
                    const char *var) {
    std::optional<std::string> v = get(o ? &(o->*member) : nullptr, var);
    if (!v)
      return;
    if (!llvm::to_float(*v, field) || !std::isfinite(field) || field < 0) {
      // The flag's name follows from the variable's: EGG_LLM_X_Y is
      // --egg-llm-x-y.
      std::string flag = llvm::StringRef(var).lower();
      std::replace(flag.begin(), flag.end(), '_', '-');
      if (c.error.empty())
        c.error = "--" + flag + " / " + var +
                  " must be a non-negative number, got '" + *v + "'";
      field = 0;
    }
  };
  text(c.protocol, &LlmOptions::protocol, "EGG_LLM_PROTOCOL");
  text(c.endpoint, &LlmOptions::endpoint, "EGG_LLM_ENDPOINT");
  text(c.model, &LlmOptions::model, "EGG_LLM_MODEL");
  text(c.keyEnv, &LlmOptions::keyEnv, "EGG_LLM_KEY_ENV");
  text(c.output, &LlmOptions::output, "EGG_LLM_OUTPUT");
  text(c.cachePath, &LlmOptions::cache, "EGG_LLM_CACHE");
  text(c.promptDir, &LlmOptions::prompts, "EGG_LLM_PROMPTS");
  number(c.temperature, &LlmOptions::temperature, "EGG_LLM_TEMPERATURE");
  number(c.timeoutSeconds, &LlmOptions::timeout, "EGG_LLM_TIMEOUT");
  number(c.maxTokens, &LlmOptions::maxTokens, "EGG_LLM_MAX_TOKENS");
  number(c.maxCost, &LlmOptions::maxCost, "EGG_LLM_MAX_COST");
  number(c.promptPricePerMTok, &LlmOptions::priceIn, "EGG_LLM_PRICE_IN");
  number(c.completionPricePerMTok, &LlmOptions::priceOut, "EGG_LLM_PRICE_OUT");
  return c;
}

std::string LlmConfig::validate() const {
  if (!error.empty())
    return error;
  if (endpoint.empty())
    return "no endpoint configured (--egg-llm-endpoint / EGG_LLM_ENDPOINT)";
  if (protocol != "openai" && protocol != "anthropic")
    return "--egg-llm-protocol / EGG_LLM_PROTOCOL: unknown protocol '" +
           protocol + "', expected openai or anthropic";
  if (output != "schema" && output != "json" && output != "text")
    return "--egg-llm-output / EGG_LLM_OUTPUT: unknown answer format '" +
           output + "', expected schema, json or text";
  if (timeoutSeconds <= 0)
    return "--egg-llm-timeout / EGG_LLM_TIMEOUT: the request timeout must be "
           "positive";
  // The protocols' own ranges: a request outside them is refused (HTTP 400).
  double maxTemperature = protocol == "anthropic" ? 1 : 2;
  // As the user wrote it (%g), not in formatv's fixed two decimals.
  char given[32];
  std::snprintf(given, sizeof(given), "%g", temperature);
  if (temperature > maxTemperature)
    return llvm::formatv("--egg-llm-temperature / EGG_LLM_TEMPERATURE: {0} "
                         "is outside {1}'s range 0-{2}",
                         given, protocol, int(maxTemperature))
        .str();
  return "";
}

/// The request body of either protocol; `output` is the configured answer
/// format or the "json" fallback for servers that reject schemas.
static std::string requestBody(const LlmConfig &config,
                               const std::string &system,
                               const std::vector<ChatMessage> &messages,
                               const AnswerSchema &schema,
                               llvm::StringRef output) {
  json::Array list;
  if (config.protocol == "openai")
    list.push_back(json::Object{{"role", "system"}, {"content", system}});
  for (const ChatMessage &m : messages)
    list.push_back(json::Object{{"role", m.role}, {"content", m.content}});
  json::Object body{{"model", config.model},
                    {"messages", std::move(list)},
                    {"temperature", config.temperature}};
  std::optional<json::Value> shape;
  if (!schema.name.empty() && output == "schema")
    if (llvm::Expected<json::Value> v = mlir::egg::parseJson(schema.schema))
      shape = std::move(*v);
    else
      llvm::consumeError(v.takeError()); // Our own schemas always parse.
  if (config.protocol == "anthropic") {
    body["system"] = system;
    body["max_tokens"] = 1024;
    // Anthropic's structured output: one tool whose input is the answer,
    // and the model made to call it.
    if (shape) {
      body["tools"] = json::Array{json::Object{
          {"name", schema.name},
          {"description", "Record the decision and the reason for it."},
          {"input_schema", std::move(*shape)}}};
      body["tool_choice"] =
          json::Object{{"type", "tool"}, {"name", schema.name}};
    }
  } else if (shape) {
    body["response_format"] = json::Object{
        {"type", "json_schema"},
        {"json_schema", json::Object{{"name", schema.name},
                                     {"strict", true},
                                     {"schema", std::move(*shape)}}}};
  } else if (output != "text") {
    body["response_format"] = json::Object{{"type", "json_object"}};
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(body));
  return text;
}

bool mlir::egg::parseChatResponse(const LlmConfig &config,
                                  const std::string &body, LlmReply &reply) {
  std::string &text = reply.content;
  std::string &error = reply.error;
  llvm::Expected<json::Value> value = mlir::egg::parseJson(body);
  if (!value) {
    error = "the endpoint answered with invalid JSON: " +
            llvm::toString(value.takeError());
    return false;
  }
  const json::Object *root = value->getAsObject();
  bool anthropic = config.protocol == "anthropic";
  if (const json::Object *usage = root ? root->getObject("usage") : nullptr) {
    reply.promptTokens =
        usage->getNumber(anthropic ? "input_tokens" : "prompt_tokens")
            .value_or(0);
    reply.completionTokens =
        usage->getNumber(anthropic ? "output_tokens" : "completion_tokens")
            .value_or(0);
  }
  const json::Array *list =
      root ? root->getArray(anthropic ? "content" : "choices") : nullptr;
  if (anthropic && list) {
    // A forced tool call carries the answer as its input object; a plain
    // text block is taken when there is no tool call.
    for (const json::Value &block : *list)
      if (const json::Object *b = block.getAsObject())
        if (b->getString("type") == "tool_use")
          if (const json::Value *input = b->get("input")) {
            llvm::raw_string_ostream os(text);
            os << *input;
            return true;
          }
    for (const json::Value &block : *list)
      if (const json::Object *b = block.getAsObject())
        if (auto t = b->getString("text")) {
          text = t->str();
          return true;
        }
  } else if (list && !list->empty()) {
    if (const json::Object *first = (*list)[0].getAsObject())
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

/// Endpoints that rejected a JSON schema: asked with "json" from then on.
/// Shared by every agent of the process (egg-tune runs several).
namespace {
class SchemaRejections {
public:
  static SchemaRejections &get() {
    static SchemaRejections instance;
    return instance;
  }
  bool contains(const std::string &endpoint) {
    std::lock_guard<std::mutex> lock(mutex);
    return endpoints.count(endpoint);
  }
  void add(const std::string &endpoint) {
    std::lock_guard<std::mutex> lock(mutex);
    endpoints.insert(endpoint);
  }

private:
  std::mutex mutex;
  std::set<std::string> endpoints;
};
} // namespace

/// Sends the request; a server that answers a schema request with HTTP 400
/// is asked again without the schema (many local servers support only
/// json_object). Only when that second request is not refused too is the
/// schema taken for the cause and the endpoint asked without one from then
/// on: a 400 for another reason (a wrong model name) stays an error.
static LlmReply sendShaped(const LlmConfig &config, const std::string &system,
                           const std::vector<ChatMessage> &messages,
                           const AnswerSchema &schema, const std::string &key) {
  bool shaped = !schema.name.empty() && config.output == "schema";
  if (shaped && !SchemaRejections::get().contains(config.endpoint)) {
    LlmReply reply = send(
        config, requestBody(config, system, messages, schema, "schema"), key);
    if (reply.httpStatus != 400)
      return reply;
    LlmReply plain = send(
        config, requestBody(config, system, messages, schema, "json"), key);
    if (plain.httpStatus == 400)
      return reply;
    SchemaRejections::get().add(config.endpoint);
    return plain;
  }
  return send(config,
              requestBody(config, system, messages, schema,
                          shaped ? "json" : config.output),
              key);
}

/// The API key, from the variable the configuration names.
static std::string apiKey(const LlmConfig &config) {
  if (!config.keyEnv.empty())
    if (const char *k = std::getenv(config.keyEnv.c_str()))
      return k;
  return "";
}

/// The response cache's key of a request.
static std::string requestKey(const LlmConfig &config,
                              const std::string &system,
                              const std::vector<ChatMessage> &messages,
                              const AnswerSchema &schema) {
  return config.protocol + "\n" +
         requestBody(config, system, messages, schema, config.output);
}

LlmReply mlir::egg::chat(const LlmConfig &config, const std::string &system,
                         const std::vector<ChatMessage> &messages,
                         const AnswerSchema &schema, bool offline) {
  if (offline && config.cachePath.empty()) {
    LlmReply reply;
    reply.error = "offline, and no response cache";
    return reply;
  }
  if (std::string problem = config.validate(); !problem.empty()) {
    LlmReply reply;
    reply.error = problem;
    return reply;
  }
  std::string key = apiKey(config);
  if (config.cachePath.empty())
    return sendShaped(config, system, messages, schema, key);

  std::string error;
  std::shared_ptr<ExchangeLog> log =
      ExchangeLog::acquire(config.cachePath, error);
  if (!log) {
    LlmReply reply;
    reply.error = "response cache: " + error;
    return reply;
  }
  // Keyed by protocol and the request as first asked (it names the model
  // and holds the schema), not by the endpoint or by a schema fallback: a
  // recorded run replays wherever the endpoint went.
  std::string cacheKey = requestKey(config, system, messages, schema);
  if (std::optional<std::string> hit = log->lookup(cacheKey)) {
    LlmReply reply;
    reply.ok = true;
    reply.cached = true;
    reply.content = *hit;
    log->record(cacheKey, *hit, "", 200, 0, /*cached=*/true, key);
    return reply;
  }
  if (offline) {
    LlmReply reply;
    reply.error = "offline, and not in the response cache";
    return reply;
  }
  LlmReply reply = sendShaped(config, system, messages, schema, key);
  reply.cacheKey = cacheKey;
  log->record(cacheKey, reply.content, reply.ok ? "" : reply.error,
              reply.httpStatus, reply.attempts, /*cached=*/false, key);
  return reply;
}

void mlir::egg::keepAnswer(const LlmConfig &config, const LlmReply &reply) {
  if (config.cachePath.empty() || reply.cacheKey.empty() || !reply.ok ||
      reply.cached)
    return;
  std::string error;
  if (std::shared_ptr<ExchangeLog> log =
          ExchangeLog::acquire(config.cachePath, error))
    log->keep(reply.cacheKey, reply.content, apiKey(config));
}

/// ": <the server's message>" from an error body of either protocol
/// ({"error": {"message": ...}}), bounded and without the key; empty when
/// the body has none.
static std::string errorMessage(const std::string &body,
                                const std::string &key) {
  llvm::Expected<json::Value> value = mlir::egg::parseJson(body);
  if (!value) {
    llvm::consumeError(value.takeError());
    return "";
  }
  const json::Object *root = value->getAsObject();
  const json::Object *error = root ? root->getObject("error") : nullptr;
  std::optional<llvm::StringRef> message =
      error ? error->getString("message") : std::nullopt;
  if (!message || message->empty())
    return "";
  std::string text = message->take_front(300).str();
  for (size_t pos; !key.empty() && (pos = text.find(key)) != std::string::npos;)
    text.replace(pos, key.size(), "[REDACTED]");
  return ": " + text;
}

static LlmReply send(const LlmConfig &config, const std::string &request,
                     const std::string &key) {
  LlmReply reply;
  const Curl &curl = Curl::get();
  if (!curl.error.empty()) {
    reply.error = curl.error;
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
      reply.error = "the endpoint answered HTTP " + std::to_string(status) +
                    errorMessage(body.data, key);
    } else if (parseChatResponse(config, body.data, reply)) {
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
