// The JNI side of io.sstfilter.SstFilter and io.sstfilter.LevelAwareListener,
// compiled into librocksdbjni with the plugin (CMakeLists.txt: only in a
// RocksDB build with WITH_JNI=ON).
//
// An SstFilter's handle is what org.rocksdb.Filter disposes of and
// BlockBasedTableConfig hands to its table factory: a heap-allocated
// std::shared_ptr<const FilterPolicy> (RocksDB's java/rocksjni/filter.cc).
// A LevelAwareListener's is what AbstractEventListener disposes of and
// setListeners copies into the options: a heap-allocated
// std::shared_ptr<EventListener> (java/rocksjni/event_listener.cc,
// options.cc), on sstfilter's listener.
//
// JNI_OnLoad also re-binds OptionsUtil.readTableFormatConfig. RocksJava's
// own (java/rocksjni/portal.h, BlockBasedTableOptionsJni::construct) gives
// a loaded filter policy whose CompatibilityName() is RocksDB's built-in
// family - every sstfilter policy - to a Java BloomFilter whose handle is
// the raw FilterPolicy*, which setTableFormatConfig then reads as a
// shared_ptr* (java/rocksjni/table.cc): a crash. Any other policy it drops,
// so setTableFormatConfig leaves the DB unfiltered. The re-bound method
// runs RocksJava's and then gives the config a Filter that shares the
// loaded policy: an SstFilter for sstfilter's policies, a BloomFilter for
// RocksDB's own.
//
// It re-binds Options.eventListeners and DBOptions.eventListeners (what
// listeners() returns) too. RocksJava's takes every listener in the options
// for its JNI callback (java/rocksjni/options.cc, a static_cast): a C++
// listener - sstfilter.LevelAwareListener, from SstFilter or named in
// properties or an OPTIONS file - would crash it. The re-bound method gives
// RocksJava's the others and a LevelAwareListener for each of ours.
//
// And it re-binds ReadOptions.setTableFilter. An io.sstfilter.RangeTableFilter's
// handle is its bounds (RangeBounds), known by a set of live handles; given
// one, the ReadOptions gets sstfilter::RangeTableFilter over a copy of them,
// which reads each table's range filter in C++. RocksJava's own path would
// call Java with the properties as NewStringUTF strings (java/rocksjni/
// portal.h, TablePropertiesJni), which end the filter's bytes at their first
// zero byte. Any other handle goes to RocksJava's setTableFilter.
#include <jni.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "sstfilter/range_filter_rocksdb.h"
#include "sstfilter/rocksdb_plugin.h"

// RocksJava's implementation of OptionsUtil.readTableFormatConfig, in the
// same library (java/rocksjni/options_util.cc).
extern "C" jobject Java_org_rocksdb_OptionsUtil_readTableFormatConfig(
    JNIEnv* env, jclass cls, jlong cf_options_handle);
// RocksJava's DBOptions.eventListeners (java/rocksjni/options.cc): the Java
// objects of the JNI callbacks in a DBOptions' listeners.
extern "C" jobjectArray Java_org_rocksdb_DBOptions_eventListeners(
    JNIEnv* env, jclass cls, jlong db_options_handle);
// RocksJava's ReadOptions.setTableFilter (java/rocksjni/options.cc).
extern "C" void Java_org_rocksdb_ReadOptions_setTableFilter(
    JNIEnv* env, jclass cls, jlong read_options_handle, jlong filter_handle);

namespace {

using ROCKSDB_NAMESPACE::EventListener;
using ROCKSDB_NAMESPACE::FilterPolicy;
using PolicyHandle = std::shared_ptr<const FilterPolicy>;
using ListenerHandle = std::shared_ptr<EventListener>;
using Listeners = std::vector<ListenerHandle>;

// sstfilter's policies are named "sstfilter.<kind>" (policies.h).
bool IsSstfilterPolicy(const FilterPolicy& policy) {
  return std::string(policy.Name()).rfind("sstfilter.", 0) == 0;
}

void ThrowRocksDBException(JNIEnv* env, const std::string& message) {
  jclass exception = env->FindClass("org/rocksdb/RocksDBException");
  if (exception == nullptr) return;  // FindClass threw
  env->ThrowNew(exception, message.c_str());
  env->DeleteLocalRef(exception);
}

jlong ToJava(PolicyHandle* handle) { return reinterpret_cast<jlong>(handle); }
const PolicyHandle& FromJava(jlong handle) {
  return *reinterpret_cast<const PolicyHandle*>(handle);
}

// A Java Filter owning a new handle on `policy`: an io.sstfilter.SstFilter
// for sstfilter's policies, else an org.rocksdb.BloomFilter, the class
// RocksJava gives the built-in family. nullptr with an exception pending
// if the object could not be made.
jobject NewJavaFilter(JNIEnv* env, const PolicyHandle& policy) {
  const bool ours = IsSstfilterPolicy(*policy);
  jclass cls = env->FindClass(ours ? "io/sstfilter/SstFilter"
                                   : "org/rocksdb/BloomFilter");
  if (cls == nullptr) return nullptr;
  // The package-private constructors that take over a handle.
  jmethodID init = env->GetMethodID(cls, "<init>", ours ? "(J)V" : "(JD)V");
  jobject filter = nullptr;
  if (init != nullptr) {
    auto* handle = new PolicyHandle(policy);
    // RocksJava's BloomFilter from loaded options has bitsPerKey 0.
    filter = ours ? env->NewObject(cls, init, ToJava(handle))
                  : env->NewObject(cls, init, ToJava(handle), 0.0);
    if (filter == nullptr) delete handle;
  }
  env->DeleteLocalRef(cls);
  return filter;
}

jobject ReadTableFormatConfigKeepingFilter(JNIEnv* env, jclass cls,
                                           jlong cf_options_handle) {
  jobject config = Java_org_rocksdb_OptionsUtil_readTableFormatConfig(
      env, cls, cf_options_handle);
  if (config == nullptr || env->ExceptionCheck()) return config;
  // RocksJava's returned a config: the options hold a block-based table.
  const auto* cf_options =
      reinterpret_cast<const ROCKSDB_NAMESPACE::ColumnFamilyOptions*>(
          cf_options_handle);
  const auto* table_options =
      cf_options->table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  if (table_options == nullptr || table_options->filter_policy == nullptr) {
    return config;
  }
  const PolicyHandle& policy = table_options->filter_policy;
  const bool builtin_family = std::string(policy->CompatibilityName()) ==
                              kRocksdbFamilyCompatibilityName;
  // Another family's policy RocksJava drops, as it always has.
  if (!IsSstfilterPolicy(*policy) && !builtin_family) return config;
  jobject filter = NewJavaFilter(env, policy);
  if (filter == nullptr) return nullptr;  // exception pending
  jclass config_class = env->GetObjectClass(config);
  jmethodID set_filter = env->GetMethodID(
      config_class, "setFilterPolicy",
      "(Lorg/rocksdb/Filter;)Lorg/rocksdb/BlockBasedTableConfig;");
  if (set_filter != nullptr) {
    jobject same = env->CallObjectMethod(config, set_filter, filter);
    if (same != nullptr) env->DeleteLocalRef(same);
  }
  env->DeleteLocalRef(config_class);
  env->DeleteLocalRef(filter);
  return env->ExceptionCheck() ? nullptr : config;
}

// Its name in options strings and OPTIONS files (rocksdb_plugin.h).
bool IsLevelAwareListener(const ListenerHandle& listener) {
  return listener != nullptr &&
         std::strcmp(listener->Name(), sstfilter::kLevelAwareListenerName) == 0;
}

// A Java LevelAwareListener whose handle holds `listener`, or nullptr with
// an exception pending. Its constructor makes a new C++ listener, which
// `listener` then replaces in the handle.
jobject NewJavaListener(JNIEnv* env, const ListenerHandle& listener) {
  jclass cls = env->FindClass("io/sstfilter/LevelAwareListener");
  if (cls == nullptr) return nullptr;
  jobject object = nullptr;
  jmethodID init = env->GetMethodID(cls, "<init>", "()V");
  jmethodID handle = env->GetMethodID(cls, "handle", "()J");
  if (init != nullptr && handle != nullptr) {
    object = env->NewObject(cls, init);
  }
  if (object != nullptr) {
    *reinterpret_cast<ListenerHandle*>(env->CallLongMethod(object, handle)) =
        listener;
  }
  env->DeleteLocalRef(cls);
  return object;
}

// What listeners() returns for `listeners`: RocksJava's Java objects for
// its JNI callbacks and a LevelAwareListener for each of ours, in order.
jobjectArray JavaListeners(JNIEnv* env, jclass cls,
                           const Listeners& listeners) {
  ROCKSDB_NAMESPACE::DBOptions theirs;
  for (const ListenerHandle& listener : listeners) {
    if (!IsLevelAwareListener(listener)) theirs.listeners.push_back(listener);
  }
  jobjectArray java_theirs = Java_org_rocksdb_DBOptions_eventListeners(
      env, cls, reinterpret_cast<jlong>(&theirs));
  if (java_theirs == nullptr || theirs.listeners.size() == listeners.size()) {
    return java_theirs;
  }
  jclass element = env->FindClass("org/rocksdb/AbstractEventListener");
  if (element == nullptr) return nullptr;
  jobjectArray all = env->NewObjectArray(static_cast<jsize>(listeners.size()),
                                         element, nullptr);
  env->DeleteLocalRef(element);
  jsize next_theirs = 0;
  for (size_t i = 0; all != nullptr && i < listeners.size(); ++i) {
    jobject java = IsLevelAwareListener(listeners[i])
                       ? NewJavaListener(env, listeners[i])
                       : env->GetObjectArrayElement(java_theirs, next_theirs++);
    if (java == nullptr) return nullptr;  // exception pending
    env->SetObjectArrayElement(all, static_cast<jsize>(i), java);
    env->DeleteLocalRef(java);
  }
  env->DeleteLocalRef(java_theirs);
  return all;
}

jobjectArray OptionsListeners(JNIEnv* env, jclass cls, jlong handle) {
  return JavaListeners(
      env, cls,
      reinterpret_cast<const ROCKSDB_NAMESPACE::Options*>(handle)->listeners);
}

jobjectArray DBOptionsListeners(JNIEnv* env, jclass cls, jlong handle) {
  return JavaListeners(
      env, cls,
      reinterpret_cast<const ROCKSDB_NAMESPACE::DBOptions*>(handle)->listeners);
}

// The handle of an io.sstfilter.RangeTableFilter.
struct RangeBounds {
  std::string lower, upper;
};
std::mutex range_handles_mutex;
// The live RangeBounds handles (never destroyed: handles may outlive
// static destruction in a JVM's threads).
std::unordered_set<jlong>& RangeHandles() {
  static auto* handles = new std::unordered_set<jlong>();
  return *handles;
}

void SetTableFilter(JNIEnv* env, jclass cls, jlong read_options_handle,
                    jlong filter_handle) {
  {
    std::lock_guard<std::mutex> lock(range_handles_mutex);
    if (RangeHandles().count(filter_handle) > 0) {
      const auto* bounds = reinterpret_cast<const RangeBounds*>(filter_handle);
      reinterpret_cast<ROCKSDB_NAMESPACE::ReadOptions*>(read_options_handle)
          ->table_filter =
          sstfilter::RangeTableFilter(ROCKSDB_NAMESPACE::Slice(bounds->lower),
                                      ROCKSDB_NAMESPACE::Slice(bounds->upper));
      return;
    }
  }
  Java_org_rocksdb_ReadOptions_setTableFilter(env, cls, read_options_handle,
                                              filter_handle);
}

std::string FromJavaBytes(JNIEnv* env, jbyteArray bytes) {
  std::string out(static_cast<size_t>(env->GetArrayLength(bytes)), '\0');
  env->GetByteArrayRegion(bytes, 0, static_cast<jsize>(out.size()),
                          reinterpret_cast<jbyte*>(out.data()));
  return out;
}

// Binds `method` of `class_name` to `function`; false with an exception
// pending if the class or the method is missing.
bool Rebind(JNIEnv* env, const char* class_name, const char* method,
            const char* signature, void* function) {
  jclass cls = env->FindClass(class_name);
  if (cls == nullptr) return false;
  JNINativeMethod native{const_cast<char*>(method),
                         const_cast<char*>(signature), function};
  const jint registered = env->RegisterNatives(cls, &native, 1);
  env->DeleteLocalRef(cls);
  return registered == JNI_OK;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return JNI_ERR;
  }
  // A library that cannot re-bind the methods refuses to load: the hazards
  // above must not come back silently.
  constexpr char kListenersSignature[] =
      "(J)[Lorg/rocksdb/AbstractEventListener;";
  const bool rebound =
      Rebind(env, "org/rocksdb/OptionsUtil", "readTableFormatConfig",
             "(J)Lorg/rocksdb/TableFormatConfig;",
             reinterpret_cast<void*>(&ReadTableFormatConfigKeepingFilter)) &&
      Rebind(env, "org/rocksdb/Options", "eventListeners", kListenersSignature,
             reinterpret_cast<void*>(&OptionsListeners)) &&
      Rebind(env, "org/rocksdb/DBOptions", "eventListeners",
             kListenersSignature,
             reinterpret_cast<void*>(&DBOptionsListeners)) &&
      Rebind(env, "org/rocksdb/ReadOptions", "setTableFilter", "(JJ)V",
             reinterpret_cast<void*>(&SetTableFilter));
  return rebound ? JNI_VERSION_1_8 : JNI_ERR;
}

// io.sstfilter.SstFilter.newFilter(String id): a new handle, or
// RocksDBException naming the id.
JNIEXPORT jlong JNICALL Java_io_sstfilter_SstFilter_newFilter(JNIEnv* env,
                                                              jclass,
                                                              jstring jid) {
  const char* chars = env->GetStringUTFChars(jid, nullptr);
  if (chars == nullptr) return 0;  // OutOfMemoryError pending
  const std::string id(chars);
  env->ReleaseStringUTFChars(jid, chars);
  // Nothing unknown or unsupported passes as "no policy".
  ROCKSDB_NAMESPACE::ConfigOptions config_options;
  config_options.ignore_unknown_options = false;
  config_options.ignore_unsupported_options = false;
  PolicyHandle policy;
  ROCKSDB_NAMESPACE::Status s =
      FilterPolicy::CreateFromString(config_options, id, &policy);
  if (s.ok() && policy == nullptr) {
    s = ROCKSDB_NAMESPACE::Status::InvalidArgument("it names no policy");
  }
  if (!s.ok()) {
    ThrowRocksDBException(
        env, "sstfilter: bad filter policy id \"" + id + "\": " + s.ToString());
    return 0;
  }
  return ToJava(new PolicyHandle(std::move(policy)));
}

// io.sstfilter.SstFilter.getId(long handle): the policy's canonical id.
JNIEXPORT jstring JNICALL Java_io_sstfilter_SstFilter_getId(JNIEnv* env, jclass,
                                                            jlong handle) {
  return env->NewStringUTF(FromJava(handle)->GetId().c_str());
}

// io.sstfilter.LevelAwareListener.newListener(): a new handle on a new
// sstfilter.LevelAwareListener.
JNIEXPORT jlong JNICALL
Java_io_sstfilter_LevelAwareListener_newListener(JNIEnv*, jclass) {
  return reinterpret_cast<jlong>(
      new ListenerHandle(sstfilter::NewLevelAwareListener()));
}

// io.sstfilter.RangeTableFilter's handle: new, bounds set once, deleted.
JNIEXPORT jlong JNICALL Java_io_sstfilter_RangeTableFilter_newHandle(JNIEnv*,
                                                                     jclass) {
  const jlong handle = reinterpret_cast<jlong>(new RangeBounds());
  std::lock_guard<std::mutex> lock(range_handles_mutex);
  RangeHandles().insert(handle);
  return handle;
}

JNIEXPORT void JNICALL Java_io_sstfilter_RangeTableFilter_setBounds(
    JNIEnv* env, jclass, jlong handle, jbyteArray lower, jbyteArray upper) {
  auto* bounds = reinterpret_cast<RangeBounds*>(handle);
  bounds->lower = FromJavaBytes(env, lower);
  bounds->upper = FromJavaBytes(env, upper);
}

JNIEXPORT void JNICALL
Java_io_sstfilter_RangeTableFilter_deleteHandle(JNIEnv*, jclass, jlong handle) {
  {
    std::lock_guard<std::mutex> lock(range_handles_mutex);
    RangeHandles().erase(handle);
  }
  delete reinterpret_cast<RangeBounds*>(handle);
}

}  // extern "C"
