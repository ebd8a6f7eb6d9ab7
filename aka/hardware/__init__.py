"""Device identity, datasheet peaks, calibration and NVML readings."""
