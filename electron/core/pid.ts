/** Whether a process of this host with this pid exists (EPERM: it does, another user's). A pid from another host means nothing here. */
export function isAlive(pid: number): boolean {
  // 0 and negative pids name process groups, not a process.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
