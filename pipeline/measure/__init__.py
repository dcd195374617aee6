"""The measuring engines: timing, ceilings and the roofline, compile capture, SASS, Nsight Compute and Proton, the machine."""
