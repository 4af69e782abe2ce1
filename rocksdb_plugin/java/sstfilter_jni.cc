// The JNI side of io.sstfilter.SstFilter, compiled into librocksdbjni with
// the plugin (CMakeLists.txt: only in a RocksDB build with WITH_JNI=ON).
//
// The handle is what org.rocksdb.Filter disposes of and
// BlockBasedTableConfig hands to its table factory: a heap-allocated
// std::shared_ptr<const FilterPolicy> (RocksDB's java/rocksjni/filter.cc).
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
#include <jni.h>

#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "sstfilter/rocksdb_plugin.h"

// RocksJava's implementation of OptionsUtil.readTableFormatConfig, in the
// same library (java/rocksjni/options_util.cc).
extern "C" jobject Java_org_rocksdb_OptionsUtil_readTableFormatConfig(
    JNIEnv* env, jclass cls, jlong cf_options_handle);

namespace {

using ROCKSDB_NAMESPACE::FilterPolicy;
using PolicyHandle = std::shared_ptr<const FilterPolicy>;

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

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return JNI_ERR;
  }
  // A library that cannot re-bind the method refuses to load: the hazard
  // above must not come back silently.
  jclass options_util = env->FindClass("org/rocksdb/OptionsUtil");
  if (options_util == nullptr) return JNI_ERR;
  JNINativeMethod method{
      const_cast<char*>("readTableFormatConfig"),
      const_cast<char*>("(J)Lorg/rocksdb/TableFormatConfig;"),
      reinterpret_cast<void*>(&ReadTableFormatConfigKeepingFilter)};
  const jint registered = env->RegisterNatives(options_util, &method, 1);
  env->DeleteLocalRef(options_util);
  return registered == JNI_OK ? JNI_VERSION_1_8 : JNI_ERR;
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

}  // extern "C"
