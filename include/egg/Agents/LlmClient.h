//===- LlmClient.h - Chat requests to LLM endpoints -------------*- C++ -*-===//
//
// One chat exchange with an OpenAI-compatible endpoint (OpenAI, vLLM,
// llama.cpp server, Ollama) or Anthropic's Messages API, over libcurl opened
// at run time (a machine without libcurl gets a clear error, never a crash).
// The API key is read from the environment variable the configuration
// names; it is never logged or put in an error.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_LLMCLIENT_H
#define EGG_AGENTS_LLMCLIENT_H

#include <string>
#include <vector>

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace mlir::egg {

struct LlmConfig {
  std::string protocol = "openai"; ///< "openai" or "anthropic".
  std::string endpoint;            ///< Full URL of the chat endpoint.
  std::string model;
  std::string keyEnv; ///< Name of the variable holding the key.
  double temperature = 0;
  /// How the answer's shape is asked for: "schema" (JSON-schema structured
  /// output: OpenAI's response_format json_schema, Anthropic's forced tool
  /// call), "json" (OpenAI's json_object), or "text" (the prompt only).
  /// A server that rejects a schema (HTTP 400) is asked again with "json".
  std::string output = "schema";
  double timeoutSeconds = 60;
  int maxAttempts = 3;               ///< Retries on 429, 5xx, timeouts.
  size_t maxResponseBytes = 1 << 20; ///< Larger bodies are refused.
  /// A directory of prompt templates replacing the compiled-in ones
  /// (Prompt.h; empty: the compiled-in ones).
  std::string promptDir;
  /// SQLite response cache and exchange record (empty: none).
  std::string cachePath;
  /// Budgets over all requests of an agent (0: none): tokens, and cost in
  /// the currency of the prices (per million prompt / completion tokens).
  double maxTokens = 0, maxCost = 0;
  double promptPricePerMTok = 0, completionPricePerMTok = 0;
  /// A setting that could not be read (fromEnvironment), or empty.
  std::string error;

  /// From the environment (EGG_LLM_PROTOCOL, _ENDPOINT, _MODEL, _KEY_ENV,
  /// _TEMPERATURE, _TIMEOUT, _OUTPUT, _PROMPTS, _CACHE, _MAX_TOKENS, _MAX_COST,
  /// _PRICE_IN, _PRICE_OUT), then the command-line flags a tool registered
  /// with registerLlmCLOptions, which win (docs/agents.md).
  static LlmConfig fromEnvironment();

  /// Why this configuration cannot be used, or empty.
  std::string validate() const;
};

/// Registers the --egg-llm-* flags (one per configuration field except the
/// key, which only ever comes from the environment). Tools call it before
/// parsing their command line; idempotent.
void registerLlmCLOptions();

/// The category of those flags, for tools that hide unrelated options.
llvm::cl::OptionCategory &getLlmOptionCategory();

struct ChatMessage {
  std::string role; ///< "user" or "assistant".
  std::string content;
};

struct LlmReply {
  bool ok = false;
  std::string content; ///< The model's text when ok.
  std::string error;   ///< Why not, when not ok (never contains the key).
  long httpStatus = 0;
  int attempts = 0;
  bool cached = false; ///< Answered from the response cache, no network.
  /// The request's key in the response cache (empty without a cache).
  std::string cacheKey;
  double promptTokens = 0, completionTokens = 0; ///< As the endpoint says.
};

/// The model's text (and token use) out of a response body of the
/// configured protocol into `reply`; false with `reply.error` when the body
/// has none.
bool parseChatResponse(const LlmConfig &config, const std::string &body,
                       LlmReply &reply);

/// The shape the answer must have: a JSON schema (serialised) under a name.
struct AnswerSchema {
  std::string name;
  std::string schema;
};

/// Sends `system` and `messages`, asking for an answer of `schema` (none
/// when its name is empty); retries with backoff on 429/5xx/timeouts.
/// With a cache configured, a request whose answer was kept (keepAnswer) is
/// answered from it, and every exchange is recorded. `offline` (an
/// unusable endpoint, a spent budget): the cache only, never the network.
LlmReply chat(const LlmConfig &config, const std::string &system,
              const std::vector<ChatMessage> &messages,
              const AnswerSchema &schema = {}, bool offline = false);

/// Caches `reply`, an answer chat gave, once the caller has parsed and
/// validated it: only accepted answers are replayed.
void keepAnswer(const LlmConfig &config, const LlmReply &reply);

} // namespace mlir::egg

#endif // EGG_AGENTS_LLMCLIENT_H
