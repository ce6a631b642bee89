//! `sgc-reactor.wasm` embedded with the `wasmtime` crate through the `sgc_*` ABI
//! (docs/wasi-abi.md), version 2 by default: one `sgc_call2` per request, the input written
//! into one reusable guest buffer, the output read in place. Version 3's `sgc_call_frame`
//! takes Kafka's request frames as a broker reads them from a connection.
//!
//! The reactor imports five `wasi_snapshot_preview1` functions (the WASI tests assert the
//! list); this host provides them itself instead of pulling in a WASI implementation: no
//! environment, stderr for panic messages, and random bytes for the standard library's hash
//! seeds (outputs never depend on them).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;

use wasmtime::{Caller, Engine, Extern, Instance, Linker, Memory, Module, Store, TypedFunc};

pub type Result<T> = std::result::Result<T, String>;

pub const STATUS_OK: u32 = 0;
pub const STATUS_INPUT_ERROR: u32 = 1;
pub const STATUS_INTERNAL_ERROR: u32 = 2;
pub const FREE_OK: i32 = 0;
pub const FREE_NOT_ALLOCATED: i32 = 1;
pub const FREE_WRONG_LENGTH: i32 = 2;

/// The imports the reactor may have; anything else is refused before instantiation.
pub const WASI_IMPORTS: [&str; 5] = [
    "environ_get",
    "environ_sizes_get",
    "fd_write",
    "proc_exit",
    "random_get",
];

const WASI: &str = "wasi_snapshot_preview1";
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_BADF: i32 = 8;
const ERRNO_FAULT: i32 = 21;

fn err(context: &str) -> impl Fn(wasmtime::Error) -> String + '_ {
    move |e| format!("{context}: {e:?}")
}

/// An `sgc_call2` answer unpacked (docs/wasi-abi.md, "The sgc_call2 answer").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u32,
    pub ptr: u32,
    pub len: u32,
}

impl Answer {
    pub fn unpack(result: i64) -> Answer {
        let r = result as u64;
        Answer {
            status: (r >> 62) as u32,
            ptr: (r & 0xFFFF_FFFF) as u32,
            len: ((r >> 32) & 0x3FFF_FFFF) as u32,
        }
    }
}

/// The store's data: the random source behind `random_get`.
pub struct HostState {
    rng: u64,
}

impl HostState {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The engine and the compiled module: compiled once, instantiated on every (re)start.
#[derive(Clone)]
pub struct Compiled {
    engine: Engine,
    module: Module,
    linker: std::sync::Arc<Linker<HostState>>,
}

impl Compiled {
    pub fn from_file(path: &std::path::Path) -> Result<Compiled> {
        let mut config = wasmtime::Config::new();
        // `SGC_PERFMAP=1`: the compiled functions are named in /tmp/perf-PID.map, so that
        // `perf report` shows the guest's functions (a module optimised with `wasm-opt -g`
        // keeps their names) instead of bare addresses.
        if std::env::var_os("SGC_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config).map_err(err("engine"))?;
        let module = Module::from_file(&engine, path)
            .map_err(|e| format!("cannot load {}: {e:?}", path.display()))?;
        for import in module.imports() {
            if import.module() != WASI || !WASI_IMPORTS.contains(&import.name()) {
                return Err(format!(
                    "{} imports {}.{}, which this host does not provide",
                    path.display(),
                    import.module(),
                    import.name()
                ));
            }
        }
        let mut linker = Linker::new(&engine);
        define_wasi(&mut linker).map_err(err("defining the WASI imports"))?;
        Ok(Compiled {
            engine,
            module,
            linker: std::sync::Arc::new(linker),
        })
    }

    pub fn imports(&self) -> Vec<String> {
        self.module
            .imports()
            .map(|i| format!("{}.{}", i.module(), i.name()))
            .collect()
    }

    pub fn exports(&self) -> Vec<String> {
        self.module
            .exports()
            .map(|e| e.name().to_string())
            .collect()
    }
}

/// The guest's memory at `[ptr, ptr + len)`, or None when outside.
fn range(data: &[u8], ptr: i32, len: usize) -> Option<std::ops::Range<usize>> {
    let start = ptr as u32 as usize;
    let end = start.checked_add(len)?;
    (end <= data.len()).then_some(start..end)
}

fn memory_of(caller: &mut Caller<'_, HostState>) -> Option<Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) => Some(m),
        _ => None,
    }
}

fn put_u32(caller: &mut Caller<'_, HostState>, ptr: i32, value: u32) -> i32 {
    let Some(memory) = memory_of(caller) else {
        return ERRNO_FAULT;
    };
    let data = memory.data_mut(caller);
    match range(data, ptr, 4).and_then(|r| data.get_mut(r)) {
        Some(dst) => {
            dst.copy_from_slice(&value.to_le_bytes());
            ERRNO_SUCCESS
        }
        None => ERRNO_FAULT,
    }
}

fn define_wasi(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.func_wrap(WASI, "environ_get", |_: i32, _: i32| ERRNO_SUCCESS)?;
    linker.func_wrap(
        WASI,
        "environ_sizes_get",
        |mut caller: Caller<'_, HostState>, count: i32, size: i32| {
            let e = put_u32(&mut caller, count, 0);
            if e != ERRNO_SUCCESS {
                return e;
            }
            put_u32(&mut caller, size, 0)
        },
    )?;
    linker.func_wrap(
        WASI,
        "fd_write",
        |mut caller: Caller<'_, HostState>, fd: i32, iovs: i32, iovs_len: i32, nwritten: i32| {
            if fd != 1 && fd != 2 {
                return ERRNO_BADF;
            }
            let Some(memory) = memory_of(&mut caller) else {
                return ERRNO_FAULT;
            };
            let data = memory.data(&caller);
            let mut bytes = Vec::new();
            for i in 0..iovs_len.max(0) as usize {
                let Some(iov) = i
                    .checked_mul(8)
                    .and_then(|off| (iovs as u32 as usize).checked_add(off))
                    .and_then(|at| data.get(at..at.checked_add(8)?))
                else {
                    return ERRNO_FAULT;
                };
                let word = |k: usize| {
                    let mut w = [0u8; 4];
                    w.copy_from_slice(&iov[k..k + 4]);
                    u32::from_le_bytes(w)
                };
                let (buf, len) = (word(0), word(4));
                let Some(chunk) = range(data, buf as i32, len as usize).and_then(|r| data.get(r))
                else {
                    return ERRNO_FAULT;
                };
                bytes.extend_from_slice(chunk);
            }
            // Panic messages and the like: the host's stderr, whichever fd the guest named.
            let _ = std::io::stderr().write_all(&bytes);
            put_u32(&mut caller, nwritten, bytes.len() as u32)
        },
    )?;
    linker.func_wrap(
        WASI,
        "proc_exit",
        |_: Caller<'_, HostState>, code: i32| -> wasmtime::Result<()> {
            Err(wasmtime::format_err!("the plugin exited with code {code}"))
        },
    )?;
    linker.func_wrap(
        WASI,
        "random_get",
        |mut caller: Caller<'_, HostState>, buf: i32, len: i32| {
            let Some(memory) = memory_of(&mut caller) else {
                return ERRNO_FAULT;
            };
            let (data, state) = memory.data_and_store_mut(&mut caller);
            let Some(dst) = range(data, buf, len as u32 as usize).and_then(|r| data.get_mut(r))
            else {
                return ERRNO_FAULT;
            };
            for chunk in dst.chunks_mut(8) {
                let word = state.next().to_le_bytes();
                chunk.copy_from_slice(&word[..chunk.len()]);
            }
            ERRNO_SUCCESS
        },
    )?;
    Ok(())
}

/// Which ABI version a [`Plugin`] drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    V1,
    V2,
}

/// One instance of the reactor; several coordinators (handles) may live in it.
pub struct Plugin {
    store: Store<HostState>,
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    free_checked: TypedFunc<(u32, u32), i32>,
    realloc: TypedFunc<(u32, u32, u32), u32>,
    create: TypedFunc<(u32, u32), u32>,
    destroy: TypedFunc<u32, ()>,
    call: TypedFunc<(u32, u32, u32), u32>,
    call2: TypedFunc<(u32, u32, u32), i64>,
    call_frame: TypedFunc<(u32, u32, u32, i64, u32, u32), i64>,
    encode_request: TypedFunc<(u32, u32, u32, i32, i32), i64>,
    decode_response: TypedFunc<(u32, i32, i32, u32, u32), i64>,
    output_ptr: TypedFunc<(), u32>,
    output_len: TypedFunc<(), u32>,
    /// The reusable input buffer (version 2).
    buf: u32,
    cap: u32,
    pub abi: Abi,
}

impl Plugin {
    pub fn new(compiled: &Compiled) -> Result<Plugin> {
        let seed = RandomState::new().build_hasher().finish();
        let mut store = Store::new(&compiled.engine, HostState { rng: seed });
        let instance: Instance = compiled
            .linker
            .instantiate(&mut store, &compiled.module)
            .map_err(err("instantiating the plugin"))?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or("the plugin exports no memory")?;
        macro_rules! typed {
            ($name:literal) => {
                instance
                    .get_typed_func(&mut store, $name)
                    .map_err(err($name))?
            };
        }
        let initialize: TypedFunc<(), ()> = typed!("_initialize");
        initialize
            .call(&mut store, ())
            .map_err(err("_initialize"))?;
        let v1: TypedFunc<(), i32> = typed!("sgc_abi_version_1");
        let v2: TypedFunc<(), i32> = typed!("sgc_abi_version_2");
        let v3: TypedFunc<(), i32> = typed!("sgc_abi_version_3");
        if v1.call(&mut store, ()).ok() != Some(1)
            || v2.call(&mut store, ()).ok() != Some(2)
            || v3.call(&mut store, ()).ok() != Some(3)
        {
            return Err("unexpected ABI version markers".into());
        }
        Ok(Plugin {
            alloc: typed!("sgc_alloc"),
            free: typed!("sgc_free"),
            free_checked: typed!("sgc_free_checked"),
            realloc: typed!("sgc_realloc"),
            create: typed!("sgc_create"),
            destroy: typed!("sgc_destroy"),
            call: typed!("sgc_call"),
            call2: typed!("sgc_call2"),
            call_frame: typed!("sgc_call_frame"),
            encode_request: typed!("sgc_encode_request"),
            decode_response: typed!("sgc_decode_response"),
            output_ptr: typed!("sgc_output_ptr"),
            output_len: typed!("sgc_output_len"),
            store,
            memory,
            buf: 0,
            cap: 0,
            abi: Abi::V2,
        })
    }

    pub fn alloc(&mut self, len: u32) -> Result<u32> {
        self.alloc
            .call(&mut self.store, len)
            .map_err(err("sgc_alloc"))
    }

    pub fn free(&mut self, ptr: u32, len: u32) -> Result<()> {
        self.free
            .call(&mut self.store, (ptr, len))
            .map_err(err("sgc_free"))
    }

    pub fn free_checked(&mut self, ptr: u32, len: u32) -> Result<i32> {
        self.free_checked
            .call(&mut self.store, (ptr, len))
            .map_err(err("sgc_free_checked"))
    }

    pub fn realloc(&mut self, ptr: u32, len: u32, new_len: u32) -> Result<u32> {
        self.realloc
            .call(&mut self.store, (ptr, len, new_len))
            .map_err(err("sgc_realloc"))
    }

    /// Writes `bytes` into guest memory at `ptr` (false when outside memory).
    pub fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        let data = self.memory.data_mut(&mut self.store);
        match range(data, ptr as i32, bytes.len()).and_then(|r| data.get_mut(r)) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// Guest memory at `[ptr, ptr + len)`, borrowed in place.
    pub fn read(&self, ptr: u32, len: u32) -> Result<&[u8]> {
        let data = self.memory.data(&self.store);
        range(data, ptr as i32, len as usize)
            .and_then(|r| data.get(r))
            .ok_or_else(|| format!("[{ptr}, +{len}) lies outside linear memory"))
    }

    /// A fresh `sgc_alloc` buffer holding `bytes`.
    pub fn put(&mut self, bytes: &[u8]) -> Result<u32> {
        let len = u32::try_from(bytes.len()).map_err(|_| "input too large")?;
        let ptr = self.alloc(len)?;
        if ptr == 0 || !self.write(ptr, bytes) {
            return Err(format!("sgc_alloc({len}) failed"));
        }
        Ok(ptr)
    }

    /// Where version 1's last output lies.
    pub fn output_at(&mut self) -> Result<(u32, u32)> {
        let ptr = self
            .output_ptr
            .call(&mut self.store, ())
            .map_err(err("sgc_output_ptr"))?;
        let len = self
            .output_len
            .call(&mut self.store, ())
            .map_err(err("sgc_output_len"))?;
        Ok((ptr, len))
    }

    /// Version 1's last output.
    pub fn output(&mut self) -> Result<&[u8]> {
        let (ptr, len) = self.output_at()?;
        self.read(ptr, len)
    }

    /// A coordinator from JSON settings (None = defaults).
    pub fn create(&mut self, config: Option<&str>) -> Result<u32> {
        let text = config.unwrap_or("").as_bytes();
        let (ptr, len) = if text.is_empty() {
            (0, 0)
        } else {
            (self.put(text)?, text.len() as u32)
        };
        let handle = self
            .create
            .call(&mut self.store, (ptr, len))
            .map_err(err("sgc_create"));
        if ptr != 0 {
            self.free(ptr, len)?;
        }
        match handle? {
            0 => Err(String::from_utf8_lossy(self.output()?).into_owned()),
            h => Ok(h),
        }
    }

    pub fn destroy(&mut self, handle: u32) -> Result<()> {
        self.destroy
            .call(&mut self.store, handle)
            .map_err(err("sgc_destroy"))
    }

    /// One `sgc_call2` with whatever pointer and length.
    pub fn call2_raw(&mut self, handle: u32, ptr: u32, len: u32) -> Result<Answer> {
        self.call2
            .call(&mut self.store, (handle, ptr, len))
            .map(Answer::unpack)
            .map_err(err("sgc_call2"))
    }

    /// One `sgc_call` with whatever pointer and length.
    pub fn call1_raw(&mut self, handle: u32, ptr: u32, len: u32) -> Result<u32> {
        self.call
            .call(&mut self.store, (handle, ptr, len))
            .map_err(err("sgc_call"))
    }

    /// Writes `bytes` into the reusable input buffer (grown with one `sgc_realloc` when short);
    /// its address, or 0 for no bytes.
    fn put_reused(&mut self, bytes: &[u8]) -> Result<u32> {
        let n = u32::try_from(bytes.len()).map_err(|_| "input too large")?;
        if n > self.cap {
            let cap = n.max(self.cap.saturating_mul(2)).max(4096);
            let ptr = self.realloc(self.buf, self.cap, cap)?;
            if ptr == 0 {
                return Err(format!("sgc_realloc to {cap} bytes failed"));
            }
            self.buf = ptr;
            self.cap = cap;
        }
        if n == 0 {
            return Ok(0);
        }
        if !self.write(self.buf, bytes) {
            return Err("the input buffer lies outside memory".into());
        }
        Ok(self.buf)
    }

    /// One `sgc_call_frame` with whatever pointers and lengths.
    pub fn call_frame_raw(
        &mut self,
        handle: u32,
        (ptr, len): (u32, u32),
        now_ms: i64,
        (host_ptr, host_len): (u32, u32),
    ) -> Result<Answer> {
        self.call_frame
            .call(
                &mut self.store,
                (handle, ptr, len, now_ms, host_ptr, host_len),
            )
            .map(Answer::unpack)
            .map_err(err("sgc_call_frame"))
    }

    /// Version 3: one Kafka request frame (header and body, without the 4-byte size) at
    /// `now_ms` from `client_host`. Status 0's output is the response frame with its 4-byte
    /// size before it, then the JSON of the output's other fields ([`split_frame_output`]);
    /// any other status's is `{"error": ...}`.
    pub fn handle_frame(
        &mut self,
        handle: u32,
        frame: &[u8],
        now_ms: i64,
        client_host: &str,
    ) -> Result<(u32, &[u8])> {
        let mut bytes = frame.to_vec();
        bytes.extend_from_slice(client_host.as_bytes());
        let ptr = self.put_reused(&bytes)?;
        let len = frame.len() as u32;
        let host = (ptr + len, client_host.len() as u32);
        let a = self.call_frame_raw(handle, (ptr, len), now_ms, host)?;
        Ok((a.status, self.read(a.ptr, a.len)?))
    }

    /// Version 3: the request frame of a JSON input: its status and the frame (or the error).
    pub fn encode_request(
        &mut self,
        handle: u32,
        input: &[u8],
        api_version: i32,
        correlation_id: i32,
    ) -> Result<(u32, &[u8])> {
        let ptr = self.put_reused(input)?;
        let a = self
            .encode_request
            .call(
                &mut self.store,
                (handle, ptr, input.len() as u32, api_version, correlation_id),
            )
            .map(Answer::unpack)
            .map_err(err("sgc_encode_request"))?;
        Ok((a.status, self.read(a.ptr, a.len)?))
    }

    /// Version 3: a response frame (without its size) read back as JSON
    /// (`{"correlationId", "response"}` on status 0).
    pub fn decode_response(
        &mut self,
        handle: u32,
        api_key: i32,
        api_version: i32,
        frame: &[u8],
    ) -> Result<(u32, &[u8])> {
        let ptr = self.put_reused(frame)?;
        let a = self
            .decode_response
            .call(
                &mut self.store,
                (handle, api_key, api_version, ptr, frame.len() as u32),
            )
            .map(Answer::unpack)
            .map_err(err("sgc_decode_response"))?;
        Ok((a.status, self.read(a.ptr, a.len)?))
    }

    /// Handles one input: its status and the output, borrowed from guest memory until the
    /// next call.
    pub fn handle(&mut self, handle: u32, input: &[u8]) -> Result<(u32, &[u8])> {
        let n = u32::try_from(input.len()).map_err(|_| "input too large")?;
        match self.abi {
            Abi::V2 => {
                let ptr = self.put_reused(input)?;
                let a = self.call2_raw(handle, ptr, n)?;
                Ok((a.status, self.read(a.ptr, a.len)?))
            }
            Abi::V1 => {
                let ptr = if n == 0 { 0 } else { self.put(input)? };
                let status = self.call1_raw(handle, ptr, n);
                if ptr != 0 {
                    self.free(ptr, n)?;
                }
                let status = status?;
                Ok((status, self.output()?))
            }
        }
    }
}

/// A status 0 output of `sgc_call_frame` split into the response frame with its 4-byte size
/// (the bytes to write to the connection) and the JSON of the output's other fields.
pub fn split_frame_output(out: &[u8]) -> Result<(&[u8], &[u8])> {
    let size = out
        .get(..4)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or("no frame size")?;
    let end = usize::try_from(size)
        .ok()
        .and_then(|s| s.checked_add(4))
        .filter(|&e| e <= out.len())
        .ok_or_else(|| format!("a frame of {size} bytes in an output of {}", out.len()))?;
    Ok(out.split_at(end))
}
