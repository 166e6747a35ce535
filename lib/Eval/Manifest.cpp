//===- Manifest.cpp - Reading an EGG manifest -----------------------------===//

#include "egg/Eval/Manifest.h"
#include "egg/Support/Json.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Limits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir::egg::eval;
namespace json = llvm::json;
using mlir::egg::jsonInteger;

llvm::StringRef mlir::egg::eval::stringifyElementType(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return "f64";
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  }
  return "?";
}

int64_t mlir::egg::eval::elementBytes(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return 8;
  case ElementType::F32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  }
  return 0;
}

bool mlir::egg::eval::isHalfPrecision(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16;
}

int64_t Buffer::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n = mlir::egg::mulSat(n, d);
  return n;
}

/// Ids of the buffers with `role`, in argument order.
static std::vector<int64_t> byRole(const std::vector<Buffer> &buffers,
                                   Buffer::Role role) {
  std::vector<const Buffer *> found;
  for (const Buffer &b : buffers)
    if (b.role == role)
      found.push_back(&b);
  std::sort(found.begin(), found.end(),
            [](const Buffer *a, const Buffer *b) { return a->arg < b->arg; });
  std::vector<int64_t> ids;
  for (const Buffer *b : found)
    ids.push_back(b->id);
  return ids;
}

std::vector<int64_t> Function::inputs() const {
  return byRole(buffers, Buffer::Role::Input);
}

std::vector<int64_t> Function::outputs() const {
  return byRole(buffers, Buffer::Role::Output);
}

const Function *Manifest::findFunction(llvm::StringRef name) const {
  for (const Function &f : functions)
    if (name.empty() || f.name == name)
      return &f;
  return nullptr;
}

bool Manifest::launchesTf32(const Function &function) const {
  for (const Step &step : function.steps)
    for (const Module &m : modules)
      if (step.kind == Step::Kind::Launch && m.name == step.module &&
          llvm::StringRef(m.ptx).contains(".tf32.tf32"))
        return true;
  return false;
}

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "manifest: " + message);
}

namespace {
/// Typed field access with messages that say where the problem is.
class Reader {
public:
  Reader(const json::Object &object, std::string where)
      : object(object), where(std::move(where)) {}

  llvm::Expected<int64_t> integer(llvm::StringRef key) const {
    std::optional<int64_t> v = jsonInteger(object, key);
    if (!v)
      return fail(where + ": '" + key + "' must be an integer");
    return *v;
  }
  llvm::Expected<std::string> string(llvm::StringRef key) const {
    std::optional<llvm::StringRef> v = object.getString(key);
    if (!v)
      return fail(where + ": '" + key + "' must be a string");
    return v->str();
  }
  llvm::Expected<const json::Array *> array(llvm::StringRef key) const {
    const json::Array *v = object.getArray(key);
    if (!v)
      return fail(where + ": '" + key + "' must be an array");
    return v;
  }
  llvm::Expected<std::vector<int64_t>> integers(llvm::StringRef key) const {
    auto arr = array(key);
    if (!arr)
      return arr.takeError();
    std::vector<int64_t> values;
    for (const json::Value &v : **arr) {
      std::optional<int64_t> i = jsonInteger(v);
      if (!i)
        return fail(where + ": '" + key + "' must hold integers");
      values.push_back(*i);
    }
    return values;
  }

private:
  const json::Object &object;
  std::string where;
};
} // namespace

static llvm::Expected<ElementType> parseElementType(llvm::StringRef name,
                                                    const std::string &where) {
  if (name == "f32")
    return ElementType::F32;
  if (name == "f16")
    return ElementType::F16;
  if (name == "bf16")
    return ElementType::BF16;
  if (name == "f64")
    return ElementType::F64;
  return fail(where + ": unsupported element type '" + name + "'");
}

static llvm::Expected<Buffer> parseBuffer(const json::Value &value,
                                          const std::string &where) {
  const json::Object *o = value.getAsObject();
  if (!o)
    return fail(where + " must be an object");
  Reader r(*o, where);
  Buffer b;
  auto id = r.integer("id");
  auto role = r.string("role");
  auto shape = r.integers("shape");
  auto type = r.string("element_type");
  auto bytes = r.integer("bytes");
  if (!id)
    return id.takeError();
  if (!role)
    return role.takeError();
  if (!shape)
    return shape.takeError();
  if (!type)
    return type.takeError();
  if (!bytes)
    return bytes.takeError();
  b.id = *id;
  if (*role == "input")
    b.role = Buffer::Role::Input;
  else if (*role == "output")
    b.role = Buffer::Role::Output;
  else if (*role == "temp")
    b.role = Buffer::Role::Temp;
  else
    return fail(where + ": unknown role '" + *role + "'");
  b.arg = jsonInteger(*o, "arg").value_or(-1);
  if (b.role != Buffer::Role::Temp && b.arg < 0)
    return fail(where + ": an " + *role + " buffer needs 'arg'");
  b.shape = std::move(*shape);
  for (int64_t d : b.shape)
    if (d <= 0)
      return fail(where + ": shape dimensions must be positive");
  auto et = parseElementType(*type, where);
  if (!et)
    return et.takeError();
  b.elementType = *et;
  b.bytes = *bytes;
  // Saturating: a hostile shape must not overflow into a matching size.
  int64_t expected =
      mlir::egg::mulSat(b.numElements(), elementBytes(b.elementType));
  if (expected == std::numeric_limits<int64_t>::max())
    return fail(where + ": the buffer's shape is too large");
  if (b.bytes != expected)
    return fail(where + ": 'bytes' does not match shape and element type");
  return b;
}

static llvm::Expected<Step> parseStep(const json::Value &value,
                                      const std::string &where,
                                      const std::vector<Buffer> &buffers) {
  int64_t numBuffers = buffers.size();
  const json::Object *o = value.getAsObject();
  if (!o)
    return fail(where + " must be an object");
  Reader r(*o, where);
  auto kind = r.string("kind");
  if (!kind)
    return kind.takeError();
  Step s;
  auto checkBuffer = [&](int64_t id) -> llvm::Error {
    if (id < 0 || id >= numBuffers)
      return fail(where + llvm::formatv(": buffer {0} does not exist", id));
    return llvm::Error::success();
  };
  if (*kind == "copy") {
    s.kind = Step::Kind::Copy;
    auto src = r.integer("src");
    auto dst = r.integer("dst");
    if (!src)
      return src.takeError();
    if (!dst)
      return dst.takeError();
    s.src = *src;
    s.dst = *dst;
    if (auto e = checkBuffer(s.src))
      return std::move(e);
    if (auto e = checkBuffer(s.dst))
      return std::move(e);
    return s;
  }
  if (*kind != "launch")
    return fail(where + ": unknown step kind '" + *kind + "'");
  auto module = r.string("module");
  auto kernel = r.string("kernel");
  auto grid = r.integers("grid");
  auto block = r.integers("block");
  auto args = r.array("args");
  if (!module)
    return module.takeError();
  if (!kernel)
    return kernel.takeError();
  if (!grid)
    return grid.takeError();
  if (!block)
    return block.takeError();
  if (!args)
    return args.takeError();
  s.module = *module;
  s.kernel = *kernel;
  s.name = o->getString("name").value_or(s.kernel).str();
  if (grid->size() != 3 || block->size() != 3)
    return fail(where + ": 'grid' and 'block' need 3 entries");
  for (int i = 0; i < 3; ++i) {
    s.grid[i] = (*grid)[i];
    s.block[i] = (*block)[i];
    if (s.grid[i] < 1 || s.block[i] < 1)
      return fail(where + ": launch dimensions must be positive");
  }
  if (s.block[0] * s.block[1] * s.block[2] > mlir::egg::kMaxThreadsPerBlock)
    return fail(where + ": more than " +
                std::to_string(mlir::egg::kMaxThreadsPerBlock) +
                " threads per block");
  s.sharedBytes = jsonInteger(*o, "shared_bytes").value_or(0);
  s.waitsForPrevious = o->getBoolean("waits_for_previous").value_or(false);
  if (s.sharedBytes < 0)
    return fail(where + ": negative shared memory");
  for (auto [i, a] : llvm::enumerate(**args)) {
    std::string argWhere = where + llvm::formatv(" argument {0}", i).str();
    const json::Object *ao = a.getAsObject();
    if (!ao)
      return fail(argWhere + " must be an object");
    KernelArg arg;
    if (std::optional<int64_t> buf = jsonInteger(*ao, "buffer")) {
      arg.buffer = *buf;
      if (auto e = checkBuffer(arg.buffer))
        return std::move(e);
    } else if (std::optional<llvm::StringRef> type = ao->getString("scalar")) {
      arg.isBuffer = false;
      arg.scalarType = type->str();
      if (arg.scalarType != "i32" && arg.scalarType != "i64" &&
          arg.scalarType != "f32")
        return fail(argWhere + ": unsupported scalar type " + arg.scalarType);
      std::optional<double> v = ao->getNumber("value");
      if (!v)
        return fail(argWhere + ": scalar needs a numeric 'value'");
      arg.value = *v;
    } else if (const json::Object *map = ao->getObject("tensor_map")) {
      arg.isBuffer = false;
      arg.isTensorMap = true;
      std::optional<int64_t> buf = jsonInteger(*map, "buffer");
      if (!buf)
        return fail(argWhere + ": tensor_map needs a 'buffer'");
      arg.buffer = *buf;
      if (auto e = checkBuffer(arg.buffer))
        return std::move(e);
      const json::Array *shape = map->getArray("shape");
      if (shape)
        for (const json::Value &d : *shape)
          if (std::optional<int64_t> v = jsonInteger(d))
            arg.mapShape.push_back(*v);
      const Buffer &viewed = buffers[arg.buffer];
      if (!shape || arg.mapShape.size() != 2 || arg.mapShape[0] < 1 ||
          arg.mapShape[1] < 1 ||
          arg.mapShape[0] > viewed.numElements() / arg.mapShape[1] ||
          arg.mapShape[0] * arg.mapShape[1] != viewed.numElements())
        return fail(argWhere + ": tensor_map needs a 2-D 'shape' with as "
                               "many elements as its buffer");
      const json::Array *box = map->getArray("box");
      if (box)
        for (const json::Value &d : *box)
          if (std::optional<int64_t> v = jsonInteger(d))
            arg.box.push_back(*v);
      if (!box || arg.box.size() != 2 ||
          llvm::any_of(arg.box, [](int64_t d) { return d < 1 || d > 256; }))
        return fail(argWhere + ": tensor_map needs a 'box' of two sizes in "
                               "[1, 256]");
      if (map->getString("swizzle") != llvm::StringRef("128B"))
        return fail(argWhere + ": tensor_map swizzle must be \"128B\"");
      arg.l2Promotion256 =
          map->getString("l2_promotion") == llvm::StringRef("256B");
    } else {
      return fail(argWhere + " needs 'buffer', 'scalar' or 'tensor_map'");
    }
    s.args.push_back(arg);
  }
  return s;
}

/// Reads `name = <int>` out of the printed #egg.target attribute; 0 when
/// absent or not a number that fits (found by fuzzing: a huge value once
/// aborted the reader).
static int64_t targetField(llvm::StringRef target, llvm::StringRef name) {
  std::string key = (name + " = ").str();
  for (size_t pos = target.find(key); pos != llvm::StringRef::npos;
       pos = target.find(key, pos + 1)) {
    if (pos > 0 && (llvm::isAlnum(target[pos - 1]) || target[pos - 1] == '_'))
      continue; // Part of a longer field name.
    llvm::StringRef digits =
        target.drop_front(pos + key.size()).take_while(llvm::isDigit);
    int64_t value;
    return digits.getAsInteger(10, value) ? 0 : value;
  }
  return 0;
}

llvm::Expected<Manifest> mlir::egg::eval::parseManifest(llvm::StringRef text) {
  llvm::Expected<json::Value> json = mlir::egg::parseJson(text);
  if (!json)
    return fail("not valid JSON: " + llvm::toString(json.takeError()));
  const json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != "egg-manifest")
    return fail("not an egg-manifest file");
  if (jsonInteger(*root, "version") != 1)
    return fail("unsupported version");
  Manifest m;
  m.target = root->getString("target").value_or("").str();
  m.dramGbps = targetField(m.target, "dram_gbps");
  m.fp32Gflops = targetField(m.target, "fp32_gflops");
  m.tensorGflops = targetField(m.target, "tensor_gflops");
  m.allowTf32 = root->getBoolean("allow_tf32").value_or(false);

  Reader r(*root, "manifest");
  auto modules = r.array("modules");
  if (!modules)
    return modules.takeError();
  llvm::StringSet<> moduleNames;
  for (auto [i, v] : llvm::enumerate(**modules)) {
    std::string where = llvm::formatv("modules[{0}]", i);
    const json::Object *o = v.getAsObject();
    if (!o)
      return fail(where + " must be an object");
    Reader mr(*o, where);
    auto name = mr.string("name");
    auto ptx = mr.string("ptx");
    if (!name)
      return name.takeError();
    if (!ptx)
      return ptx.takeError();
    moduleNames.insert(*name);
    m.modules.push_back({*name, *ptx});
  }
  auto functions = r.array("functions");
  if (!functions)
    return functions.takeError();
  for (auto [i, v] : llvm::enumerate(**functions)) {
    std::string where = llvm::formatv("functions[{0}]", i);
    const json::Object *o = v.getAsObject();
    if (!o)
      return fail(where + " must be an object");
    Reader fr(*o, where);
    Function f;
    auto name = fr.string("name");
    auto buffers = fr.array("buffers");
    auto steps = fr.array("steps");
    if (!name)
      return name.takeError();
    if (!buffers)
      return buffers.takeError();
    if (!steps)
      return steps.takeError();
    f.name = *name;
    for (auto [j, b] : llvm::enumerate(**buffers)) {
      auto buffer =
          parseBuffer(b, where + llvm::formatv(".buffers[{0}]", j).str());
      if (!buffer)
        return buffer.takeError();
      if (buffer->id != (int64_t)j)
        return fail(where + llvm::formatv(".buffers[{0}]: id must be {0}", j));
      f.buffers.push_back(std::move(*buffer));
    }
    for (auto [j, s] : llvm::enumerate(**steps)) {
      auto step = parseStep(s, where + llvm::formatv(".steps[{0}]", j).str(),
                            f.buffers);
      if (!step)
        return step.takeError();
      if (step->kind == Step::Kind::Launch &&
          !moduleNames.contains(step->module))
        return fail(where + llvm::formatv(".steps[{0}]", j).str() +
                    ": unknown module '" + step->module + "'");
      if (step->kind == Step::Kind::Copy &&
          f.buffers[step->src].bytes != f.buffers[step->dst].bytes)
        return fail(where + llvm::formatv(".steps[{0}]", j).str() +
                    ": copy between buffers of different sizes");
      f.steps.push_back(std::move(*step));
    }
    if (f.outputs().empty())
      return fail(where + ": the function has no output buffer");
    m.functions.push_back(std::move(f));
  }
  if (m.functions.empty())
    return fail("no functions");
  return m;
}
