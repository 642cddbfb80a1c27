"""cuda_library: .cu sources compiled by nvcc into objects that cc_ rules link.

Device code is built for the architectures in --//tools/cuda:archs (default
sm_90), each as SASS plus PTX for the newest one. No relocatable device code:
every kernel lives in the translation unit that launches it.
"""

load("@local_cuda//:defs.bzl", "NVCC")

CudaArchsInfo = provider(fields = ["archs"])

def _archs_flag_impl(ctx):
    archs = [a.strip() for a in ctx.build_setting_value.split(",") if a.strip()]
    for a in archs:
        if not a.startswith("sm_"):
            fail("--//tools/cuda:archs takes sm_XY names, got '%s'" % a)
    return CudaArchsInfo(archs = archs)

cuda_archs_flag = rule(
    implementation = _archs_flag_impl,
    build_setting = config.string(flag = True),
)

def _gencode(archs):
    flags = []
    for a in archs:
        n = a[len("sm_"):]
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (n, n))
    n = archs[-1][len("sm_"):]
    flags.append("-gencode=arch=compute_%s,code=compute_%s" % (n, n))
    return flags

def _cuda_objects_impl(ctx):
    cc_ctx = [d[CcInfo].compilation_context for d in ctx.attr.deps if CcInfo in d]
    headers = depset(ctx.files.hdrs, transitive = [c.headers for c in cc_ctx])
    incs = ["-I."]
    for c in cc_ctx:
        incs += ["-I" + p for p in c.includes.to_list()]
        incs += ["-I" + p for p in c.quote_includes.to_list()]
        incs += ["-isystem=" + p for p in c.system_includes.to_list()]
    archs = ctx.attr._archs[CudaArchsInfo].archs
    objs = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s.pic.o" % (ctx.label.name, src.basename[:-len(".cu")]))
        args = ctx.actions.args()
        args.add_all(["-c", src.path, "-o", obj.path, "-std=c++17", "-O3", "-Xcompiler", "-fPIC"])
        args.add_all(_gencode(archs))
        # The fatbinary compressed in the toolkit's default mode: "size" packs
        # it to a third (segreduce.cu's tuned int32 set: 2.2 MB against 5.8 MB,
        # CUDA 13) but takes 21 s of that file's 157 s to do it, against 0.7 s;
        # over the whole build that is a minute of a cold two-core build.
        args.add("-compress-mode=default")
        args.add_all(["-D" + d for d in ctx.attr.defines])
        args.add_all(incs)
        args.add_all(ctx.attr.copts)
        ctx.actions.run(
            executable = NVCC,
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "Nvcc",
            progress_message = "nvcc %s (%s)" % (src.short_path, ",".join(archs)),
            # nvcc reaches into the toolkit outside the sandbox; PATH finds the host compiler.
            execution_requirements = {"no-sandbox": "1"},
            use_default_shell_env = True,
        )
        objs.append(obj)
    return [DefaultInfo(files = depset(objs))]

_cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(),
        "defines": attr.string_list(),
        "copts": attr.string_list(),
        "_archs": attr.label(default = "//tools/cuda:archs"),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], defines = [], copts = [], **kwargs):
    """A cc_library whose sources are .cu files compiled by nvcc."""
    _cuda_objects(
        name = name + "_cu",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:headers"],
        defines = defines,
        copts = copts,
        tags = kwargs.get("tags", []),
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_cu"],
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        linkstatic = True,
        **kwargs
    )
