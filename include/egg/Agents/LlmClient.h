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

namespace mlir::egg {

struct LlmConfig {
  std::string protocol = "openai"; ///< "openai" or "anthropic".
  std::string endpoint;            ///< Full URL of the chat endpoint.
  std::string model;
  std::string keyEnv; ///< Name of the variable holding the key.
  double temperature = 0;
  double timeoutSeconds = 60;
  int maxAttempts = 3;               ///< Retries on 429, 5xx, timeouts.
  size_t maxResponseBytes = 1 << 20; ///< Larger bodies are refused.
  /// SQLite response cache and exchange record (empty: none).
  std::string cachePath;
  /// Budgets over all requests of an agent (0: none): tokens, and cost in
  /// the currency of the prices (per million prompt / completion tokens).
  double maxTokens = 0, maxCost = 0;
  double promptPricePerMTok = 0, completionPricePerMTok = 0;

  /// From EGG_LLM_PROTOCOL, EGG_LLM_ENDPOINT, EGG_LLM_MODEL, EGG_LLM_KEY_ENV,
  /// EGG_LLM_TIMEOUT, EGG_LLM_CACHE, EGG_LLM_MAX_TOKENS, EGG_LLM_MAX_COST,
  /// EGG_LLM_PRICE_IN, EGG_LLM_PRICE_OUT (docs/agents.md).
  static LlmConfig fromEnvironment();
};

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
  double promptTokens = 0, completionTokens = 0; ///< As the endpoint says.
};

/// Sends `system` and `messages`; retries with backoff on 429/5xx/timeouts.
/// With a cache configured, a request seen before is answered from it and
/// every exchange is recorded.
LlmReply chat(const LlmConfig &config, const std::string &system,
              const std::vector<ChatMessage> &messages);

} // namespace mlir::egg

#endif // EGG_AGENTS_LLMCLIENT_H
