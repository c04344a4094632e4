
W	/host:CPU,python€€¨±ãŸçË"	