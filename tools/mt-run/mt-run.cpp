// placeholder while the plan format lands
int main() { return 0; }
