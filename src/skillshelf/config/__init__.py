"""skillshelf.config"""
