//! What a GPU is, as the driver reports it: the facts the occupancy calculator, `host info` and
//! the JSON envelopes need.
use std::ffi::c_int;

use anyhow::Result;
use cust::device::{Device, DeviceAttribute};
use cust_raw::driver_sys;
use serde::Serialize;

use super::driver;

fn attr(dev: Device, a: driver_sys::CUdevice_attribute) -> Result<i32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid place for the one int the call writes; `dev` is a device handle
    // the driver gave out.
    let code = unsafe { driver_sys::cuDeviceGetAttribute(&mut v, a, dev.as_raw()) };
    driver::check(code, "cuDeviceGetAttribute")?;
    Ok(v)
}

/// What the occupancy calculator and `host info` need to know about a GPU.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub total_memory_bytes: usize,
    pub shared_memory_per_block: u32,
    pub shared_memory_per_block_optin: u32,
    pub shared_memory_per_sm: u32,
    pub reserved_shared_memory_per_block: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub warp_size: u32,
    pub l2_cache_bytes: u32,
    pub clock_mhz: u32,
    pub driver_version: String,
}

impl DeviceInfo {
    pub fn of(dev: Device) -> Result<DeviceInfo> {
        use driver_sys::CUdevice_attribute as A;
        let get = |a| attr(dev, a).map(|v| v as u32);
        let mut driver: c_int = 0;
        // SAFETY: `driver` is a valid place for the one int the call writes.
        let status = unsafe { driver_sys::cuDriverGetVersion(&mut driver) };
        driver::check(status, "cuDriverGetVersion")?;
        Ok(DeviceInfo {
            name: dev.name()?,
            compute_capability: (
                dev.get_attribute(DeviceAttribute::ComputeCapabilityMajor)? as u32,
                dev.get_attribute(DeviceAttribute::ComputeCapabilityMinor)? as u32,
            ),
            multiprocessors: get(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            total_memory_bytes: dev.total_memory()?,
            shared_memory_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_memory_per_block_optin: get(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            shared_memory_per_sm: get(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            reserved_shared_memory_per_block: get(
                A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )?,
            registers_per_sm: get(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            registers_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            max_threads_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_sm: get(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_sm: get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            warp_size: get(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            l2_cache_bytes: get(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            clock_mhz: get(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? / 1000,
            driver_version: format!("{}.{}", driver / 1000, (driver % 1000) / 10),
        })
    }

    /// The GPU as the `device` of a JSON envelope (rgk_core::envelope), `count` of them.
    pub fn device(&self, count: u32) -> rgk_core::envelope::Device {
        rgk_core::envelope::Device {
            kind: rgk_core::envelope::DeviceKind::Gpu,
            name: self.name.clone(),
            count,
            processors: self.multiprocessors,
            memory_bytes: Some(self.total_memory_bytes as u64),
            compute_capability: Some(format!(
                "{}.{}",
                self.compute_capability.0, self.compute_capability.1
            )),
            clock_mhz: Some(self.clock_mhz),
            driver: Some(self.driver_version.clone()),
        }
    }
}
